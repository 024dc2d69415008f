/*
 * SHA-256 (FIPS 180-4), for the plan digest: calibration records the digest of the pairs it
 * measured (planner.PairsDigest, Go's crypto/sha256 over the same text), and the shim checks
 * that the pairs it is asked to merge are those. No library: the shim links only libc.
 */
#include <stdio.h>
#include <string.h>

#include "shim.h"

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(struct sha256 *h, const unsigned char *b)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h->state[0], bb = h->state[1], c = h->state[2], d = h->state[3];
	uint32_t e = h->state[4], f = h->state[5], g = h->state[6], hh = h->state[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
		uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
		hh = g, g = f, f = e, e = d + t1, d = c, c = bb, bb = a, a = t1 + t2;
	}
	h->state[0] += a, h->state[1] += bb, h->state[2] += c, h->state[3] += d;
	h->state[4] += e, h->state[5] += f, h->state[6] += g, h->state[7] += hh;
}

void shim_sha256_init(struct sha256 *h)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(h->state, iv, sizeof iv);
	h->bytes = 0;
}

void shim_sha256_add(struct sha256 *h, const void *data, size_t n)
{
	const unsigned char *p = data;
	while (n > 0) {
		size_t at = h->bytes % 64, take = 64 - at < n ? 64 - at : n;
		memcpy(h->buf + at, p, take);
		h->bytes += take, p += take, n -= take;
		if (h->bytes % 64 == 0)
			block(h, h->buf);
	}
}

/* The digest as 64 lowercase hex digits and a NUL. */
void shim_sha256_hex(struct sha256 *h, char out[65])
{
	uint64_t bits = h->bytes * 8;
	unsigned char pad[72] = {0x80};
	size_t padlen = (h->bytes % 64 < 56 ? 56 : 120) - h->bytes % 64;
	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	shim_sha256_add(h, pad, padlen + 8);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned)(h->state[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}
