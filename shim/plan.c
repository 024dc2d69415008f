/*
 * The compact plan `echoctl run` derives from a plan file (planner.Compact): line-oriented
 * text, so the shim needs no JSON parser. Every line is checked; anything unexpected makes
 * the whole plan unusable, and the program runs untouched.
 *
 *   echo-plan 1
 *   exe MODULE
 *   name FILENAME          the executable's file name (optional)
 *   gpu NAME...            cc MAJOR.MINOR      driver N      runtime N      (each optional)
 *   strategy mapped|managed|system|pinned
 *   mode deploy|measure|validate|resolve
 *   marker MODULE OFFSET CALL BYTES [EVERY]   time every EVERY-th call there (optional)
 *   digest HEX             SHA-256 of the pair, host, device and chunk lines below
 *   pair ID BYTES input|output|both
 *   host MODULE OFFSET CALL BYTES ORDINAL [MODULE:OFFSET...]
 *   device MODULE OFFSET CALL BYTES ORDINAL [MODULE:OFFSET...]
 *   chunk OFFSET BYTES     a piece of the pair its chunked copies move (merges, validate)
 *   copy MODULE OFFSET CALL BYTES h2d|d2h      a linking copy's site (merges, resolve mode)
 *   end
 *
 * A pair names both sides' sites for the merges, the host side's for pinned (which serves
 * the host allocation alone), and its linking-copy sites for the merges (which bind the two
 * sides only at one of them, bind.c) and in resolve mode (which finds the sides' sites). A
 * side's MODULE:OFFSET words are its call chain (chain.c): with them, ORDINAL counts the
 * calls from that chain.
 *
 * MODULE is a build-id in hex, or size:N:BASENAME for a file without one; OFFSET is hex.
 * The digest is calibration's (planner.PairsDigest), or for what echoctl deploys unmeasured
 * (calibration's own runs, run --force) the digest of the lines it wrote: the pairs deployed
 * must be those, byte for byte, lines and newlines (chunk and copy lines included). A
 * deployment that merges needs one: without it, a file whose digest line was deleted along
 * with an edit (two pairs' device lines swapped) would deploy what no run measured. Pinned
 * keeps every copy, so cannot change what the program computes, and deploys without one;
 * the other modes merge nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static int fail(char *why, size_t len, int line, const char *what)
{
	snprintf(why, len, "plan line %d: %s", line, what);
	return -1;
}

/* A side's call chain: up to SHIM_CHAIN words MODULE:OFFSET, and nothing after them. */
static int parse_chain(const char *rest, struct site *s)
{
	for (;;) {
		char word[128], *colon, *end;
		int used = 0;
		if (sscanf(rest, "%127s%n", word, &used) != 1)
			return 0;
		rest += used;
		if (s->nchain == SHIM_CHAIN || (colon = strrchr(word, ':')) == NULL || colon == word ||
		    (size_t)(colon - word) >= sizeof s->chain[0].module)
			return -1;
		struct frame *f = &s->chain[s->nchain++];
		f->offset = strtoull(colon + 1, &end, 16);
		if (end == colon + 1 || *end)
			return -1;
		memcpy(f->module, word, (size_t)(colon - word));
		f->module[colon - word] = '\0';
	}
}

static int parse_site(const char *rest, struct site *s, bool ordinal)
{
	char module[96], call[32];
	unsigned long long offset, bytes;
	int ord = 0, n, used = 0;
	if (ordinal)
		n = sscanf(rest, "%95s %llx %31s %llu %d%n", module, &offset, call, &bytes, &ord, &used);
	else
		n = sscanf(rest, "%95s %llx %31s %llu", module, &offset, call, &bytes);
	if (n != (ordinal ? 5 : 4) || bytes == 0 || ord < 0)
		return -1;
	memcpy(s->module, module, sizeof module);
	memcpy(s->call, call, sizeof call);
	s->offset = offset;
	s->bytes = bytes;
	s->ordinal = ord;
	s->nchain = 0;
	return ordinal ? parse_chain(rest + used, s) : 0;
}

/* What a pair needs: its copy sites to be resolved, its host site to be pinned, both sites
 * (of the pair's size) to be merged or watched. */
static bool pair_complete(const struct plan *p, const struct pair *c)
{
	if (p->mode == MODE_RESOLVE)
		return c->ncopies > 0;
	if (p->strategy == STRATEGY_PINNED)
		return c->has_host;
	return c->has_host && c->has_device && c->device.bytes == c->bytes;
}

int shim_parse_plan(const char *text, struct plan *p, char *why, size_t whylen)
{
	memset(p, 0, sizeof *p);
	p->strategy = -1;
	p->mode = -1;
	struct pair *cur = NULL;
	bool ended = false, sides[2] = {false, false};
	int lineno = 0;
	struct sha256 pairs_hash;
	shim_sha256_init(&pairs_hash);
	for (const char *line = text; line && *line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		lineno++;
		if (len >= sizeof buf)
			return fail(why, whylen, lineno, "too long");
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;
		if (!buf[0])
			continue;
		if (ended)
			return fail(why, whylen, lineno, "text after end");
		char key[16];
		int at = 0;
		if (sscanf(buf, "%15s %n", key, &at) != 1)
			return fail(why, whylen, lineno, "no keyword");
		const char *rest = buf + at;
		if (!strcmp(key, "pair") || !strcmp(key, "host") || !strcmp(key, "device") || !strcmp(key, "chunk") ||
		    !strcmp(key, "copy")) {
			shim_sha256_add(&pairs_hash, buf, len);
			shim_sha256_add(&pairs_hash, "\n", 1);
		}
		if (lineno == 1) {
			if (strcmp(buf, "echo-plan 1") != 0)
				return fail(why, whylen, lineno, "not a compact Echo plan of version 1");
		} else if (!strcmp(key, "exe")) {
			if (sscanf(rest, "%95s", p->exe) != 1)
				return fail(why, whylen, lineno, "exe needs a module");
		} else if (!strcmp(key, "name")) {
			snprintf(p->name, sizeof p->name, "%s", rest);
		} else if (!strcmp(key, "gpu")) {
			snprintf(p->gpu, sizeof p->gpu, "%s", rest);
		} else if (!strcmp(key, "cc")) {
			snprintf(p->cc, sizeof p->cc, "%s", rest);
		} else if (!strcmp(key, "driver") || !strcmp(key, "runtime")) {
			char *end;
			long v = strtol(rest, &end, 10);
			if (*end || v <= 0)
				return fail(why, whylen, lineno, "a version must be a positive number");
			*(key[0] == 'd' ? &p->driver : &p->runtime) = (int)v;
		} else if (!strcmp(key, "strategy")) {
			if (!strcmp(rest, "mapped"))
				p->strategy = STRATEGY_MAPPED;
			else if (!strcmp(rest, "managed"))
				p->strategy = STRATEGY_MANAGED;
			else if (!strcmp(rest, "system"))
				p->strategy = STRATEGY_SYSTEM;
			else if (!strcmp(rest, "pinned"))
				p->strategy = STRATEGY_PINNED;
			else
				return fail(why, whylen, lineno, "unknown strategy");
		} else if (!strcmp(key, "mode")) {
			if (!strcmp(rest, "deploy"))
				p->mode = MODE_DEPLOY;
			else if (!strcmp(rest, "measure"))
				p->mode = MODE_MEASURE;
			else if (!strcmp(rest, "validate"))
				p->mode = MODE_VALIDATE;
			else if (!strcmp(rest, "resolve"))
				p->mode = MODE_RESOLVE;
			else
				return fail(why, whylen, lineno, "unknown mode");
		} else if (!strcmp(key, "digest")) {
			if (strlen(rest) != 64 || strspn(rest, "0123456789abcdef") != 64)
				return fail(why, whylen, lineno, "a digest is 64 lowercase hex digits");
			memcpy(p->digest, rest, 65);
		} else if (!strcmp(key, "marker")) {
			int every = 1;
			if (parse_site(rest, &p->marker, false) != 0 ||
			    (sscanf(rest, "%*s %*s %*s %*s %d", &every) == 1 && every < 1))
				return fail(why, whylen, lineno, "marker needs MODULE OFFSET CALL BYTES [EVERY]");
			p->has_marker = true;
			p->marker_every = every;
		} else if (!strcmp(key, "pair")) {
			if (cur && !pair_complete(p, cur))
				return fail(why, whylen, lineno, "the previous pair lacks the lines its mode and strategy need");
			if (p->npairs == MAX_PAIRS)
				return fail(why, whylen, lineno, "too many pairs");
			cur = &p->pairs[p->npairs++];
			unsigned long long bytes;
			char dir[16];
			if (sscanf(rest, "%15s %llu %15s", cur->id, &bytes, dir) != 3 || bytes == 0)
				return fail(why, whylen, lineno, "pair needs ID BYTES DIRECTION");
			cur->bytes = bytes;
			cur->chunk[0].bytes = bytes;
			cur->input = !strcmp(dir, "input") || !strcmp(dir, "both");
			cur->output = !strcmp(dir, "output") || !strcmp(dir, "both");
			cur->window = -1;
			if (!cur->input && !cur->output)
				return fail(why, whylen, lineno, "a pair's direction is input, output or both");
			sides[0] = sides[1] = false;
		} else if (!strcmp(key, "host") || !strcmp(key, "device")) {
			bool host = key[0] == 'h';
			if (!cur || sides[!host])
				return fail(why, whylen, lineno, "a host or device line outside a pair, or twice");
			struct site *s = host ? &cur->host : &cur->device;
			if (parse_site(rest, s, true) != 0 || (host && s->bytes != cur->bytes) || s->bytes < cur->bytes)
				return fail(why, whylen, lineno, "a side needs MODULE OFFSET CALL BYTES ORDINAL of the pair's size");
			sides[!host] = true;
			*(host ? &cur->has_host : &cur->has_device) = true;
		} else if (!strcmp(key, "chunk")) {
			unsigned long long off, bytes;
			if (!cur || cur->nchunks == MAX_CHUNKS - 1)
				return fail(why, whylen, lineno, "a chunk line outside a pair, or too many");
			if (sscanf(rest, "%llu %llu", &off, &bytes) != 2 || bytes == 0 || bytes >= cur->bytes ||
			    off > cur->bytes - bytes)
				return fail(why, whylen, lineno, "a chunk needs OFFSET BYTES inside the pair");
			cur->nchunks++;
			cur->chunk[cur->nchunks].offset = off;
			cur->chunk[cur->nchunks].bytes = bytes;
		} else if (!strcmp(key, "copy")) {
			char dir[8] = "";
			if (!cur || cur->ncopies == MAX_COPIES)
				return fail(why, whylen, lineno, "a copy line outside a pair, or too many");
			struct site *s = &cur->copy_sites[cur->ncopies];
			/* a chunked copy moves less than the pair; resolve mode links whole buffers */
			if (parse_site(rest, s, false) != 0 || s->bytes > cur->bytes ||
			    (p->mode == MODE_RESOLVE && s->bytes != cur->bytes) ||
			    sscanf(rest, "%*s %*s %*s %*s %7s", dir) != 1 || (strcmp(dir, "h2d") && strcmp(dir, "d2h")))
				return fail(why, whylen, lineno, "a copy needs MODULE OFFSET CALL BYTES h2d|d2h within the pair's size");
			cur->copy_h2d[cur->ncopies++] = dir[0] == 'h';
		} else if (!strcmp(key, "end")) {
			ended = true;
		} else {
			return fail(why, whylen, lineno, "unknown keyword");
		}
	}
	if (!ended)
		return fail(why, whylen, lineno, "no end line: the plan was cut short");
	if (!p->exe[0] || (int)p->strategy < 0 || (int)p->mode < 0)
		return fail(why, whylen, lineno, "exe, strategy and mode are required");
	for (int i = 0; i < p->npairs; i++)
		if (!pair_complete(p, &p->pairs[i]))
			return fail(why, whylen, lineno, "a pair lacks the lines its mode and strategy need");
	if (p->mode == MODE_MEASURE && !p->has_marker)
		return fail(why, whylen, lineno, "measure mode needs a marker");
	char got[65];
	shim_sha256_hex(&pairs_hash, got);
	if (p->digest[0])
		p->digest_ok = !strcmp(got, p->digest);
	else
		p->digest_ok = p->mode != MODE_DEPLOY || p->strategy == STRATEGY_PINNED;
	return 0;
}

const char *shim_digest_problem(const struct plan *p)
{
	return p->digest[0] ? "are not the ones calibration measured (was it edited?)"
			    : "carry no digest, so an edit cannot be told from them (was its digest line removed?)";
}
