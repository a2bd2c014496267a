/* SPDX-License-Identifier: MIT */
/*
 * Cluster key files: SW_WIRE_KEY_LEN random bytes in hex, readable by their owner only. The
 * permission check is made on the open file (fstat), so the file checked is the file read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "sw_wire.h"
#include "wire_int.h"

int sw_wire_key_load(const char *path, struct sw_wire_key *key, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return sw_wire_errf(err, errlen, -errno, "key file %s: %s", path, strerror(errno));
	struct stat st;
	char text[2 * SW_WIRE_KEY_LEN + 2];
	ssize_t n = -1;
	int rc = 0;
	if (fstat(fd, &st) < 0)
		rc = sw_wire_errf(err, errlen, -errno, "key file %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = sw_wire_errf(err, errlen, -EINVAL, "key file %s: not a regular file", path);
	else if (st.st_uid != geteuid())
		rc = sw_wire_errf(err, errlen, -EPERM,
		                  "key file %s: owned by uid %u, not by this user (%u)", path,
		                  (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & 077)
		rc = sw_wire_errf(
		        err, errlen, -EPERM,
		        "key file %s: mode %04o lets others read it; it must be readable only by "
		        "its owner (chmod 600 %s)",
		        path, (unsigned)(st.st_mode & 07777), path);
	else if ((n = read(fd, text, sizeof(text))) < 0)
		rc = sw_wire_errf(err, errlen, -errno, "key file %s: %s", path, strerror(errno));
	close(fd);
	if (rc < 0)
		return rc;
	if (n > 0 && text[n - 1] == '\n')
		n--;
	long len = 0;
	if (n == 2 * SW_WIRE_KEY_LEN) {
		text[n] = '\0';
		unsigned char *raw = OPENSSL_hexstr2buf(text, &len);
		if (raw != NULL && len == SW_WIRE_KEY_LEN)
			memcpy(key->bytes, raw, SW_WIRE_KEY_LEN);
		OPENSSL_clear_free(raw, raw ? (size_t)len : 0);
		OPENSSL_cleanse(text, sizeof(text));
		if (len == SW_WIRE_KEY_LEN)
			return 0;
	}
	return sw_wire_errf(err, errlen, -EINVAL,
	                    "key file %s: not a key (%d hex digits expected; "
	                    "make one with `swctl keygen FILE`)",
	                    path, 2 * SW_WIRE_KEY_LEN);
}

int sw_wire_key_generate(const char *path, char *err, size_t errlen)
{
	uint8_t raw[SW_WIRE_KEY_LEN];
	char text[2 * SW_WIRE_KEY_LEN + 2];
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return sw_wire_errf(err, errlen, -EIO, "no random bytes from OpenSSL");
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(text + 2 * i, 3, "%02x", raw[i]);
	text[2 * SW_WIRE_KEY_LEN] = '\n';
	OPENSSL_cleanse(raw, sizeof(raw));
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return sw_wire_errf(err, errlen, -errno, "key file %s: %s%s", path, strerror(errno),
		                    errno == EEXIST ? " (not overwritten)" : "");
	ssize_t n = write(fd, text, 2 * SW_WIRE_KEY_LEN + 1);
	int rc = n == 2 * SW_WIRE_KEY_LEN + 1 ? 0 : n < 0 ? -errno : -EIO;
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	OPENSSL_cleanse(text, sizeof(text));
	if (rc < 0) {
		unlink(path);
		return sw_wire_errf(err, errlen, rc, "key file %s: writing failed: %s", path,
		                    strerror(-rc));
	}
	return 0;
}
