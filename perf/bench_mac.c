/* SPDX-License-Identifier: MIT */
/*
 * The reducer's pass over an answer's bytes for its tag, per MAC, in CPU time.
 *
 * Part 1, on warm buffers, per span cut into 1 MiB chunks as the server sends them: memcpy
 * (the reference: one pass that reads and writes every byte), the answer tag as built
 * (sw_shuffle_proto_chunk_check), and the same structure with each candidate taking the
 * 64 KiB pieces' digests (keyed once, a fixed nonce: digests never leave the process) followed
 * by the AES-128-GMAC tag over them: OpenSSL 3's GMAC and Poly1305 (EVP_MAC "POLY1305", keyed
 * afresh per piece, as a one-time key must be), nettle's UMAC-64, -96 and -128.
 *
 * Part 2, where the bytes are: 1 MiB chunks copied in 64 KiB slices (as the kernel's receive
 * copy writes them) into 4 destination buffers of 16 MiB, more than the caches hold, and the
 * answer tag as built taken after each chunk (as the fetcher does) or each piece's digest right
 * after its slice, while it is in cache; the copy alone is the reference.
 *
 * Variants run interleaved, run by run, so that each sees the same load; figures are medians.
 *   bench_mac [RUNS [MIB]]  -> GB per CPU-second of each, the tag as built / memcpy, each
 *   candidate / gmac (the tag's structure before protocol version 4), and for part 2 the tag's
 *   ns per byte over the copy
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nettle/umac.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proto.h"

#define CHUNK     (1u << 20)
#define PART      (16u << 20)
#define NDEST     4
#define MAX_RUNS  99
#define MAX_PIECE (CHUNK / PROTO_PIECE)

enum { MEMCPY, CHECK, GMAC, POLY, UMAC64, UMAC96, UMAC128, NV };
static const char *const names[NV] = {"memcpy", "tag",    "gmac",   "poly1305",
                                      "umac64", "umac96", "umac128"};

static struct proto_tag *gm;
static EVP_CIPHER_CTX *gcm, *outer;
static EVP_MAC_CTX *poly;
static struct umac64_ctx u64;
static struct umac96_ctx u96;
static struct umac128_ctx u128;
static uint8_t key[PROTO_KEY_LEN], nonce[16];
static uint8_t *dst;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what)
{
	fprintf(stderr, "bench_mac: %s failed\n", what);
	exit(1);
}

/* One piece's digest under candidate v into out; its length in bytes. */
static size_t piece(int v, const uint8_t *d, size_t n, uint32_t i, uint8_t *out)
{
	static const uint8_t iv[12];
	size_t len = 16;
	int k;
	switch (v) {
	case GMAC:
		if (EVP_EncryptInit_ex(gcm, NULL, NULL, NULL, iv) != 1 ||
		    EVP_EncryptUpdate(gcm, NULL, &k, d, (int)n) != 1 ||
		    EVP_EncryptFinal_ex(gcm, NULL, &k) != 1 ||
		    EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_GCM_GET_TAG, 16, out) != 1)
			fail("gmac");
		return 16;
	case POLY: /* the piece's index in the key stands for a one-time key per piece */
		memcpy(key, &i, sizeof(i));
		if (EVP_MAC_init(poly, key, 32, NULL) != 1 || EVP_MAC_update(poly, d, n) != 1 ||
		    EVP_MAC_final(poly, out, &len, 16) != 1)
			fail("poly1305");
		return 16;
	case UMAC64:
		umac64_set_nonce(&u64, sizeof(nonce), nonce);
		umac64_update(&u64, n, d);
		umac64_digest(&u64, UMAC64_DIGEST_SIZE, out);
		return UMAC64_DIGEST_SIZE;
	case UMAC96:
		umac96_set_nonce(&u96, sizeof(nonce), nonce);
		umac96_update(&u96, n, d);
		umac96_digest(&u96, UMAC96_DIGEST_SIZE, out);
		return UMAC96_DIGEST_SIZE;
	default:
		umac128_set_nonce(&u128, sizeof(nonce), nonce);
		umac128_update(&u128, n, d);
		umac128_digest(&u128, UMAC128_DIGEST_SIZE, out);
		return UMAC128_DIGEST_SIZE;
	}
}

/* One chunk as the reducer checks it under variant v. */
static void chunk(int v, const uint8_t *d, size_t n, uint32_t seq)
{
	uint8_t digests[MAX_PIECE * 16], hdr[PROTO_CHUNK_TAGGED] = {0}, iv[12] = {0}, tag[16];
	size_t len = 0;
	int k;
	if (v == MEMCPY) {
		memcpy(dst, d, n);
		return;
	}
	if (v == CHECK) {
		struct proto_chunk c = {.len = (uint32_t)n, .raw_len = (uint32_t)n, .seq = seq};
		sw_shuffle_proto_chunk_check(gm, key, 1, &c, d, n); /* -EBADMSG: never sealed */
		return;
	}
	for (size_t off = 0; off < n; off += PROTO_PIECE)
		len += piece(v, d + off, n - off < PROTO_PIECE ? n - off : PROTO_PIECE,
		             seq << 8 | (uint32_t)(off / PROTO_PIECE), digests + len);
	memcpy(iv + 8, &seq, sizeof(seq));
	if (EVP_EncryptInit_ex(outer, NULL, NULL, NULL, iv) != 1 ||
	    EVP_EncryptUpdate(outer, NULL, &k, hdr, sizeof(hdr)) != 1 ||
	    EVP_EncryptUpdate(outer, NULL, &k, digests, (int)len) != 1 ||
	    EVP_EncryptFinal_ex(outer, NULL, &k) != 1 ||
	    EVP_CIPHER_CTX_ctrl(outer, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
		fail("tag");
}

enum { COPY, AFTER, SLICES, NR };
static const char *const rnames[NR] = {"copy", "tag after chunk", "digest per slice"};

/* One chunk received into to, slice by slice from the cached src, and checked by mode m. */
static void receive(int m, const uint8_t *src, uint8_t *to, uint32_t seq)
{
	uint8_t digests[MAX_PIECE * PROTO_DIGEST_LEN];
	struct proto_chunk c = {.len = CHUNK, .raw_len = CHUNK, .seq = seq};
	for (size_t off = 0; off < CHUNK; off += PROTO_PIECE) {
		memcpy(to + off, src, PROTO_PIECE);
		if (m == SLICES)
			sw_shuffle_proto_digests(gm, key + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN,
			                         to + off, PROTO_PIECE,
			                         digests + off / PROTO_PIECE * PROTO_DIGEST_LEN);
	}
	if (m == AFTER)
		sw_shuffle_proto_chunk_check(gm, key, 1, &c, to, CHUNK);
	else if (m == SLICES) {
		uint8_t tag[PROTO_TAG_LEN];
		memcpy(tag, c.tag, sizeof(tag));
		if (sw_shuffle_proto_chunk_seal_digests(gm, key, 1, &c, digests, MAX_PIECE) < 0)
			fail("seal");
		CRYPTO_memcmp(tag, c.tag, sizeof(tag)); /* as the check compares */
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 256;
	static const size_t spans[] = {64u << 10, 1u << 20, 16u << 20};
	EVP_MAC *alg = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	if (runs < 1 || runs > MAX_RUNS || mib < 16 || mib > (1u << 20)) {
		fprintf(stderr, "usage: bench_mac [RUNS (1-%d) [MIB (16-1048576)]]\n", MAX_RUNS);
		return 2;
	}
	if (alg == NULL || (poly = EVP_MAC_CTX_new(alg)) == NULL ||
	    (gcm = EVP_CIPHER_CTX_new()) == NULL || (outer = EVP_CIPHER_CTX_new()) == NULL ||
	    (gm = sw_shuffle_proto_tag_new()) == NULL ||
	    EVP_EncryptInit_ex(gcm, EVP_aes_128_gcm(), NULL, key, NULL) != 1 ||
	    EVP_EncryptInit_ex(outer, EVP_aes_128_gcm(), NULL, key, NULL) != 1)
		fail("openssl setup");
	umac64_set_key(&u64, key);
	umac96_set_key(&u96, key);
	umac128_set_key(&u128, key);
	uint8_t *buf = malloc(PART);
	dst = malloc((size_t)NDEST * PART);
	if (buf == NULL || dst == NULL)
		fail("malloc");
	for (size_t i = 0; i < PART; i++) /* every page touched once: no faults timed */
		buf[i] = (uint8_t)(i * 131);
	memset(dst, 0xa5, (size_t)NDEST * PART);

	printf("# the reducer's tag pass, GB per CPU-second, medians of %d interleaved runs of %zu "
	       "MiB (warm buffers)\n%-9s",
	       runs, mib, "span");
	for (int v = 0; v < NV; v++)
		printf(" %8s", names[v]);
	printf(" | tag/memcpy | /gmac: %6s %6s %6s %6s\n", names[POLY], names[UMAC64],
	       names[UMAC96], names[UMAC128]);
	for (size_t s = 0; s < sizeof(spans) / sizeof(spans[0]); s++) {
		double gbs[NV][MAX_RUNS], med[NV];
		size_t reps = (mib << 20) / spans[s];
		for (int r = 0; r < runs; r++)
			for (int v = 0; v < NV; v++) {
				double t0 = now();
				for (size_t k = 0; k < reps; k++)
					for (size_t off = 0; off < spans[s]; off += CHUNK)
						chunk(v, buf + off,
						      spans[s] - off < CHUNK ? spans[s] - off
						                             : CHUNK,
						      (uint32_t)(off / CHUNK));
				gbs[v][r] = (double)reps * spans[s] / (now() - t0) / 1e9;
			}
		printf("%-9zu", spans[s]);
		for (int v = 0; v < NV; v++)
			printf(" %8.2f", med[v] = median(gbs[v], runs));
		printf(" | %10.2f |       %8.2f %6.2f %6.2f %7.2f\n", med[CHECK] / med[MEMCPY],
		       med[POLY] / med[GMAC], med[UMAC64] / med[GMAC], med[UMAC96] / med[GMAC],
		       med[UMAC128] / med[GMAC]);
	}

	printf("# receiving 16 MiB partitions in 1 MiB chunks and 64 KiB slices into %d cold "
	       "buffers, GB per CPU-second and the tag's ns per byte over the copy\n",
	       NDEST);
	double gbs[NR][MAX_RUNS], med[NR];
	size_t parts = (mib << 20) / PART;
	for (int r = 0; r < runs; r++)
		for (int m = 0; m < NR; m++) {
			double t0 = now();
			for (size_t p = 0; p < parts; p++)
				for (uint32_t c = 0; c < PART / CHUNK; c++)
					receive(m, buf, dst + p % NDEST * PART + c * CHUNK, c);
			gbs[m][r] = (double)parts * PART / (now() - t0) / 1e9;
		}
	for (int m = 0; m < NR; m++) {
		med[m] = median(gbs[m], runs);
		printf("%-18s %6.2f", rnames[m], med[m]);
		if (m != COPY)
			printf("  tag %.3f ns/B", 1 / med[m] - 1 / med[COPY]);
		printf("\n");
	}
	free(dst);
	free(buf);
	sw_shuffle_proto_tag_free(gm);
	EVP_CIPHER_CTX_free(outer);
	EVP_CIPHER_CTX_free(gcm);
	EVP_MAC_CTX_free(poly);
	EVP_MAC_free(alg);
	return 0;
}
