/* SPDX-License-Identifier: MIT */
/*
 * The reducer's pass over an answer's bytes for its tag, per MAC, on warm buffers: the answer
 * tag as it is (AES-128-GMAC over the 64 KiB pieces' GMAC digests, shuffle/auth.c, checked
 * through sw_shuffle_proto_chunk_check) against two candidates of the same structure and the
 * same security: Poly1305 (EVP_MAC "POLY1305") over each piece and then over the digests, and
 * ChaCha20-Poly1305 with the piece as additional data, each keyed once per piece (a one-time
 * Poly1305 key: the AEAD derives it from its key and nonce). Spans are cut into 1 MiB chunks,
 * as the server sends them. Variants run interleaved, run by run, so that each sees the same
 * load; the figure is the median of RUNS.
 *   bench_mac [RUNS [MIB]]  -> per span: GB per CPU-second of each, and each candidate / GMAC
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "proto.h"

#define CHUNK (1u << 20)

enum { GMAC, POLY, CHAPOLY, NMAC };
static const char *const names[NMAC] = {"gmac", "poly1305", "chacha20-poly1305"};

static EVP_MAC_CTX *poly;
static EVP_CIPHER_CTX *chapoly;
static struct proto_gmac *gm;
static uint8_t key[32];

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

/* Poly1305 of one piece under a fresh 32-byte key (the piece's index in it stands for the
 * one-time key a protocol would derive per piece). */
static void poly_piece(const uint8_t *d, size_t n, uint32_t i, uint8_t out[16])
{
	size_t len = 0;
	memcpy(key, &i, sizeof(i));
	if (EVP_MAC_init(poly, key, sizeof(key), NULL) != 1 || EVP_MAC_update(poly, d, n) != 1 ||
	    EVP_MAC_final(poly, out, &len, 16) != 1)
		fail("poly1305");
}

static void chapoly_piece(const uint8_t *d, size_t n, uint32_t i, uint8_t out[16])
{
	uint8_t iv[12] = {0};
	int k;
	memcpy(iv, &i, sizeof(i));
	if (EVP_EncryptInit_ex(chapoly, NULL, NULL, key, iv) != 1 ||
	    EVP_EncryptUpdate(chapoly, NULL, &k, d, (int)n) != 1 ||
	    EVP_EncryptFinal_ex(chapoly, NULL, &k) != 1 ||
	    EVP_CIPHER_CTX_ctrl(chapoly, EVP_CTRL_AEAD_GET_TAG, 16, out) != 1)
		fail("chacha20-poly1305");
}

/* One chunk as the reducer checks it: the pieces' digests, then the tag over them. */
static void chunk(int mac, const uint8_t *d, size_t n, uint32_t seq)
{
	uint8_t digests[(CHUNK / PROTO_PIECE) * 16], tag[16];
	size_t np = (n + PROTO_PIECE - 1) / PROTO_PIECE;
	if (mac == GMAC) {
		struct proto_chunk c = {.len = (uint32_t)n, .raw_len = (uint32_t)n, .seq = seq};
		sw_shuffle_proto_chunk_check(gm, key, 1, &c, d,
		                             n); /* -EBADMSG: no tag was sealed */
		return;
	}
	for (size_t i = 0; i < np; i++) {
		size_t off = i * PROTO_PIECE;
		size_t len = n - off < PROTO_PIECE ? n - off : PROTO_PIECE;
		(mac == POLY ? poly_piece : chapoly_piece)(d + off, len, seq << 8 | (uint32_t)i,
		                                           digests + i * 16);
	}
	(mac == POLY ? poly_piece : chapoly_piece)(digests, np * 16, ~seq, tag);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 256;
	static const size_t spans[] = {64u << 10, 1u << 20, 16u << 20};
	EVP_MAC *alg = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	if (runs < 1 || runs > 99 || mib < 16 || alg == NULL ||
	    (poly = EVP_MAC_CTX_new(alg)) == NULL || (chapoly = EVP_CIPHER_CTX_new()) == NULL ||
	    (gm = sw_shuffle_proto_gmac_new()) == NULL ||
	    EVP_EncryptInit_ex(chapoly, EVP_chacha20_poly1305(), NULL, NULL, NULL) != 1) {
		fprintf(stderr, "usage: bench_mac [RUNS (1-99) [MIB (>= 16)]]\n");
		return 2;
	}
	uint8_t *buf = malloc(16u << 20);
	if (buf == NULL)
		fail("malloc");
	for (size_t i = 0; i < (16u << 20); i++) /* touched once: every pass reads warm pages */
		buf[i] = (uint8_t)(i * 131);
	printf("# the reducer's tag pass, GB per CPU-second, medians of %d interleaved runs of %zu "
	       "MiB\n",
	       runs, mib);
	printf("%-10s %8s %10s %10s %8s %8s\n", "span", names[GMAC], "poly1305", "chacha-p",
	       "p/gmac", "c/gmac");
	for (size_t s = 0; s < sizeof(spans) / sizeof(spans[0]); s++) {
		double gbs[NMAC][99];
		size_t reps = (mib << 20) / spans[s];
		for (int r = 0; r < runs; r++) {
			for (int m = 0; m < NMAC; m++) {
				double t0 = now();
				for (size_t k = 0; k < reps; k++)
					for (size_t off = 0; off < spans[s]; off += CHUNK)
						chunk(m, buf + off,
						      spans[s] - off < CHUNK ? spans[s] - off
						                             : CHUNK,
						      (uint32_t)(off / CHUNK));
				gbs[m][r] = (double)reps * spans[s] / (now() - t0) / 1e9;
			}
		}
		for (int m = 0; m < NMAC; m++)
			qsort(gbs[m], (size_t)runs, sizeof(double), cmp);
		double g = gbs[GMAC][runs / 2], p = gbs[POLY][runs / 2], c = gbs[CHAPOLY][runs / 2];
		printf("%-10zu %8.2f %10.2f %10.2f %8.2f %8.2f\n", spans[s], g, p, c, p / g, c / g);
	}
	free(buf);
	sw_shuffle_proto_gmac_free(gm);
	EVP_CIPHER_CTX_free(chapoly);
	EVP_MAC_CTX_free(poly);
	EVP_MAC_free(alg);
	return 0;
}
