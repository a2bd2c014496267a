/* SPDX-License-Identifier: MIT */
/* Internal to shuffle/: UMAC-64 (RFC 4418) of the answer tag's pieces (auth.c). */
#ifndef SW_SHUFFLE_UMAC_H
#define SW_SHUFFLE_UMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UMAC_KEY_LEN 16
#define UMAC_TAG_LEN 8
#define UMAC_ITERS   2 /* UMAC-64: two 32-bit hashes */
/* Longest message: 2^14 blocks of 1,024 bytes, the most L2 hashes under its 64-bit prime
 * alone (RFC 4418, 5.3); the pieces are 64 KiB. */
#define UMAC_MAX_LEN (1u << 24)

/* A key expanded for UMAC-64 with the all-zero 16-byte nonce (the pieces' digests never leave
 * the process; auth.c). */
struct umac64_key {
	uint32_t l1[1024 / 4 + 4 * (UMAC_ITERS - 1)]; /* NH key words, host order */
	uint64_t l2[UMAC_ITERS];                      /* POLY-64 keys, masked */
	uint64_t l3[UMAC_ITERS][8];                   /* inner-product keys, mod 2^36 - 5 */
	uint32_t l3x[UMAC_ITERS];                     /* the words XORed on each hash */
	uint8_t pad[UMAC_TAG_LEN];                    /* PDF of the zero nonce */
};

void sw_shuffle_umac64_key(struct umac64_key *k, const uint8_t key[UMAC_KEY_LEN]);
/* UMAC-64 of len (at most UMAC_MAX_LEN) bytes under k with the zero nonce. */
void sw_shuffle_umac64(const struct umac64_key *k, const void *data, size_t len,
                       uint8_t out[UMAC_TAG_LEN]);
/* Whether NH runs on AVX2 (it does where the CPU has it); false turns it off, for the tests
 * to check the portable code too. Returns whether AVX2 is in use after the call. */
bool sw_shuffle_umac_simd(bool on);

#endif
