/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the decoder of one wire message type (FUZZ_TYPE, set by fuzz.sh at
 * build time: one binary per type, so each decoder gets the whole run to itself). A message
 * that decodes must encode again, and the handshake steps that take it (Hello, Challenge,
 * Auth) must run on it without fault. Decoding the re-encoded bytes may fail: protobuf-c
 * keeps unknown fields verbatim and accepts field number 0 written as an overlong varint
 * (0x80 0x00), which it re-encodes short and then refuses; when it decodes, encoding it once
 * more must give the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sw_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void handshake_steps(const struct sw_wire_msg *m)
{
	static const struct sw_wire_key key = {{1}};
	struct sw_wire_handshake hs;
	SwWire__Challenge ch = SW_WIRE__CHALLENGE__INIT;
	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	SwWire__Hello hello = SW_WIRE__HELLO__INIT;
	switch (m->type) {
	case SW_WIRE_HELLO:
		(void)sw_wire_challenge_make(&hs, &key, m->hello, &ch);
		break;
	case SW_WIRE_CHALLENGE:
		if (sw_wire_hello_init(&hs, "r0n1", &hello) == 0)
			(void)sw_wire_challenge_answer(&hs, &key, m->challenge, &auth);
		break;
	case SW_WIRE_AUTH:
		memset(&hs, 0, sizeof(hs));
		strcpy(hs.node_id, "r0n1");
		(void)sw_wire_auth_check(&hs, &key, m->auth);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_wire_msg m, again;
	void *buf, *buf2;
	size_t len, len2;
	if (sw_wire_decode(FUZZ_TYPE, data, size, &m, NULL, 0) < 0)
		return 0;
	handshake_steps(&m);
	if (sw_wire_encode(FUZZ_TYPE, m.base, &buf, &len, NULL, 0) < 0)
		abort();
	if (sw_wire_decode(FUZZ_TYPE, buf, len, &again, NULL, 0) == 0) {
		if (sw_wire_encode(FUZZ_TYPE, again.base, &buf2, &len2, NULL, 0) < 0 ||
		    len2 != len || memcmp(buf, buf2, len) != 0)
			abort();
		free(buf2);
		sw_wire_msg_free(&again);
	}
	sw_wire_msg_free(&m);
	free(buf);
	return 0;
}
