/* SPDX-License-Identifier: MIT */
/*
 * UMAC-64 (RFC 4418) for the answer tag's piece digests, written here for its NH layer on AVX2:
 * NH is the one pass over every byte a reducer makes (shuffle/README.md, "Answer tag"), and
 * nettle 3.8's NH runs on SSE2, where this CPU multiplies four lanes at once (README.md,
 * "NH on AVX2"). The same function as nettle's umac64 with the same key and nonce, byte for
 * byte (the proto suite compares them on random keys and lengths, both NH codes).
 *
 * Structure, RFC 4418 section 5: each 1,024-byte block gives NH (L1) plus its length in bits,
 * per iteration; the blocks' values are hashed by POLY-64 (L2) unless there is one block; the
 * result by an inner product mod 2^36 - 5 (L3); the two iterations' 32-bit words, XORed with
 * the pad that AES makes of the nonce (PDF), are the tag. Key material comes from AES-128 of
 * counters (KDF). Messages stop at UMAC_MAX_LEN, below which L2 needs no 128-bit prime.
 */
#include <string.h>

#include <nettle/aes.h>

#include "umac.h"

#define BLOCK   1024
#define P36     ((1ull << 36) - 5)
#define P64     (0ull - 59) /* 2^64 - 59 */
#define MASK64  0x01ffffff01ffffffull
#define BIGWORD (0ull - (1ull << 32)) /* 2^64 - 2^32: words from here on are split */

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* KDF(K, index, len): AES-128 of (index, 1), (index, 2), ... as 64-bit big-endian pairs. */
static void kdf(const struct aes128_ctx *aes, uint8_t index, uint8_t *out, size_t len)
{
	uint8_t in[AES_BLOCK_SIZE] = {0}, t[AES_BLOCK_SIZE];
	in[7] = index;
	for (uint32_t i = 1; len > 0; i++) {
		in[12] = (uint8_t)(i >> 24);
		in[13] = (uint8_t)(i >> 16);
		in[14] = (uint8_t)(i >> 8);
		in[15] = (uint8_t)i;
		aes128_encrypt(aes, AES_BLOCK_SIZE, t, in);
		size_t n = len < AES_BLOCK_SIZE ? len : AES_BLOCK_SIZE;
		memcpy(out, t, n);
		out += n;
		len -= n;
	}
}

void sw_shuffle_umac64_key(struct umac64_key *k, const uint8_t key[UMAC_KEY_LEN])
{
	struct aes128_ctx aes;
	uint8_t b[sizeof(k->l1)], zero[AES_BLOCK_SIZE] = {0}, pk[AES_BLOCK_SIZE];
	aes128_set_encrypt_key(&aes, key);
	kdf(&aes, 1, b, sizeof(k->l1));
	for (size_t i = 0; i < sizeof(k->l1) / 4; i++)
		k->l1[i] = be32(b + 4 * i);
	kdf(&aes, 2, b, 24 * UMAC_ITERS); /* per iteration 8 bytes for POLY-64, 16 for POLY-128 */
	for (int i = 0; i < UMAC_ITERS; i++)
		k->l2[i] = be64(b + 24 * i) & MASK64;
	kdf(&aes, 3, b, 64 * UMAC_ITERS);
	for (int i = 0; i < UMAC_ITERS; i++)
		for (int j = 0; j < 8; j++)
			k->l3[i][j] = be64(b + 64 * i + 8 * j) % P36;
	kdf(&aes, 4, b, 4 * UMAC_ITERS);
	for (int i = 0; i < UMAC_ITERS; i++)
		k->l3x[i] = be32(b + 4 * i);
	/* PDF: AES under KDF(K, 0, 16) of the nonce, its last bit cleared, which picks the half */
	kdf(&aes, 0, pk, sizeof(pk));
	aes128_set_encrypt_key(&aes, pk);
	aes128_encrypt(&aes, AES_BLOCK_SIZE, b, zero);
	memcpy(k->pad, b, UMAC_TAG_LEN);
	memset(&aes, 0, sizeof(aes));
	memset(b, 0, sizeof(b));
	memset(pk, 0, sizeof(pk));
}

/* NH of both iterations over n bytes of m (a multiple of 32) under the key words from k on:
 * iteration i adds the words 4 i further on. Message words are little-endian. */
static void nh_portable(const uint32_t *k, const uint8_t *m, size_t n, uint64_t y[2])
{
	uint64_t a = 0, b = 0;
	for (size_t i = 0; i < n; i += 32, k += 8) {
		uint32_t w[8];
		memcpy(w, m + i, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		for (int j = 0; j < 8; j++)
			w[j] = __builtin_bswap32(w[j]);
#endif
		for (int j = 0; j < 4; j++) {
			a += (uint64_t)(uint32_t)(w[j] + k[j]) * (uint32_t)(w[j + 4] + k[j + 4]);
			b += (uint64_t)(uint32_t)(w[j] + k[j + 4]) *
			     (uint32_t)(w[j + 4] + k[j + 8]);
		}
	}
	y[0] += a;
	y[1] += b;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* How far ahead NH asks for the message's bytes. The kernel's receive copy leaves them out of
 * the reducer's caches (README.md, "NH on AVX2"), and the hardware's prefetcher stops at each
 * 4 KiB page: 16 KiB ahead took a 16 MiB fetch's CPU per byte down 7%, 1 MiB's 4%. */
#define NH_AHEAD (16u << 10)

/* nh_portable on AVX2: the 8 products of a 32-byte group, both iterations', in two
 * multiplies. Words 0-3 of the group, in both halves of a register, plus key words 0-7 are
 * the first iteration's left factors (low half) and the second's (high half, its key 4 words
 * on); words 4-7 plus key words 4-11 their right ones. The halves come from broadcast loads,
 * so no shuffle is needed, where nettle's SSE2 NH takes four multiplies and eight shuffles. */
__attribute__((target("avx2"))) static void nh_avx2(const uint32_t *k, const uint8_t *m, size_t n,
                                                    uint64_t y[2])
{
	__m256i acc = _mm256_setzero_si256(), acc2 = _mm256_setzero_si256();
	for (size_t i = 0; i < n; i += 32, k += 8) {
		/* may point past the message's end: a hint, not a load */
		_mm_prefetch((const char *)((uintptr_t)m + i + NH_AHEAD), _MM_HINT_T0);
		__m256i a = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(m + i)));
		__m256i b =
		        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(m + i + 16)));
		a = _mm256_add_epi32(a, _mm256_loadu_si256((const __m256i *)k));
		b = _mm256_add_epi32(b, _mm256_loadu_si256((const __m256i *)(k + 4)));
		acc = _mm256_add_epi64(acc, _mm256_mul_epu32(a, b));
		acc2 = _mm256_add_epi64(
		        acc2, _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)));
	}
	uint64_t v[4];
	_mm256_storeu_si256((__m256i *)v, _mm256_add_epi64(acc, acc2));
	y[0] += v[0] + v[1];
	y[1] += v[2] + v[3];
}

static bool have_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}
#else
#define nh_avx2 nh_portable
static bool have_avx2(void)
{
	return false;
}
#endif

typedef void nh_fn(const uint32_t *k, const uint8_t *m, size_t n, uint64_t y[2]);
static bool portable; /* set by the tests alone, before they hash */

bool sw_shuffle_umac_simd(bool on)
{
	portable = !on;
	return on && have_avx2();
}

/* L1 of one block of len bytes (0..BLOCK): NH of the block zero-padded to a positive multiple
 * of 32 bytes (the empty message to 32 zero bytes), plus its length in bits. */
static void l1(nh_fn *nh, const struct umac64_key *k, const uint8_t *m, size_t len, uint64_t y[2])
{
	size_t whole = len & ~(size_t)31;
	y[0] = y[1] = 8 * (uint64_t)len;
	if (whole > 0)
		nh(k->l1, m, whole, y);
	if (whole < len || len == 0) {
		uint8_t last[32] = {0};
		memcpy(last, m + whole, len - whole);
		nh(k->l1 + whole / 4, last, 32, y);
	}
}

/* One step of POLY-64 (RFC 4418, 5.3), k * y + m mod p = 2^64 - 59, with k below 2^57: words
 * from 2^64 - 2^32 on go in as the marker p - 1 and the word less 59, so every input is below
 * the prime. 2^64 is 59 mod p, so the product's high word comes back as 59 times it. */
static uint64_t poly64_step(uint64_t k, uint64_t y, uint64_t m)
{
	unsigned __int128 x = (unsigned __int128)k * y;
	x = (unsigned __int128)(uint64_t)x + m + (uint64_t)(x >> 64) * 59; /* below 2^66 */
	uint64_t r = (uint64_t)x, c = (uint64_t)(x >> 64) * 59;
	r += c;
	if (r < c) /* carried: 2^64 once more */
		r += 59;
	return r >= P64 ? r - P64 : r;
}

static uint64_t poly64(uint64_t k, uint64_t y, uint64_t m)
{
	if (m >= BIGWORD) {
		y = poly64_step(k, y, P64 - 1);
		m -= 59;
	}
	return poly64_step(k, y, m);
}

/* L3 of the 128-bit value whose high half is zero (a POLY-64 result or one L1 value): its
 * 16-bit words times the keys, mod 2^36 - 5, the low 32 bits XORed with the key word. */
static uint32_t l3(const struct umac64_key *k, int i, uint64_t v)
{
	uint64_t s = 0;
	for (int j = 0; j < 4; j++)
		s += (v >> (48 - 16 * j) & 0xffff) * k->l3[i][4 + j];
	return (uint32_t)(s % P36) ^ k->l3x[i];
}

void sw_shuffle_umac64(const struct umac64_key *k, const void *data, size_t len,
                       uint8_t out[UMAC_TAG_LEN])
{
	const uint8_t *m = data;
	uint64_t y[2], a[UMAC_ITERS] = {1, 1};
	nh_fn *nh = !portable && have_avx2() ? nh_avx2 : nh_portable;
	if (len <= BLOCK) { /* one block: L1's value goes to L3 as it is */
		l1(nh, k, m, len, a);
	} else {
		for (size_t off = 0; off < len; off += BLOCK) {
			l1(nh, k, m + off, len - off < BLOCK ? len - off : BLOCK, y);
			for (int i = 0; i < UMAC_ITERS; i++)
				a[i] = poly64(k->l2[i], a[i], y[i]);
		}
	}
	for (int i = 0; i < UMAC_ITERS; i++) {
		uint32_t c = l3(k, i, a[i]);
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(c >> (24 - 8 * j)) ^ k->pad[4 * i + j];
	}
}
