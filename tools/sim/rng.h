/* SPDX-License-Identifier: MIT */
/*
 * A small deterministic random number generator for the simulator: xoshiro256** seeded through
 * splitmix64 (Blackman and Vigna). Kept here rather than in libc because rand() and random()
 * differ between C libraries and the simulator must give the same bytes everywhere.
 */
#ifndef SW_SIM_RNG_H
#define SW_SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Independent streams per (seed, stream): a job's placement depends only on its own id. */
static inline void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed;

	x ^= rng_splitmix64(&stream);
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0; Lemire's multiply-shift, bias below 2^-32 for our n. */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Exponential with the given mean. 1 - u lies in (0, 1], so the log is finite. */
static inline double rng_exponential(struct rng *r, double mean)
{
	return -mean * log(1.0 - rng_uniform(r));
}

/* Standard normal (Box-Muller); 1 - u lies in (0, 1], so the log is finite. */
static inline double rng_normal(struct rng *r)
{
	double u = 1.0 - rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * rng_uniform(r));
}

#endif /* SW_SIM_RNG_H */
