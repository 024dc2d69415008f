/*
 * The compact plan echoctl derives from a plan file (plan.Compact) for `echoctl run`,
 * validate's and calibrate's runs, and the NAME.plan.shim deployments `echoctl plans add`
 * writes into a plan directory: line-oriented text, so the shim needs no JSON parser. Every
 * line is checked; anything unexpected makes the whole plan unusable, and the program runs
 * untouched.
 *
 *   echo-plan 1
 *   exe MODULE
 *   name FILENAME          the executable's file name (optional)
 *   gpu NAME...            cc MAJOR.MINOR      driver N      runtime N      (each optional)
 *   strategy mapped|managed|system|pinned
 *   mode deploy|measure|validate|resolve
 *   marker MODULE OFFSET CALL BYTES [EVERY]   time every EVERY-th call there (optional)
 *   digest HEX             SHA-256 of the pair, host, device, chunk and copy lines below
 *   pair ID BYTES input|output|both
 *   host MODULE OFFSET CALL BYTES ORDINAL [MODULE:OFFSET...]
 *   device MODULE OFFSET CALL BYTES ORDINAL [MODULE:OFFSET...]
 *   chunk OFFSET BYTES     a piece of the pair its chunked copies move (merges, validate)
 *   copy MODULE OFFSET CALL BYTES h2d|d2h      a linking copy's site (merges, resolve mode)
 *   staged                 the pair's copies name a framework's staging buffer, and its host
 *                          side is the buffer behind it (resolve mode, staging.c)
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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static int fail(char *why, size_t len, int line, const char *what)
{
	snprintf(why, len, "plan line %d: %s", line, what);
	return -1;
}

/* A scanf format whose string widths come from the fields they fill: each "%s" of spec
 * becomes "%Ns", N the next size given less one (room for the NUL), so no width is matched
 * to a struct by hand. Plan lines are short (512 bytes), formats shorter. */
static const char *widths(char *fmt, size_t len, const char *spec, ...)
{
	va_list ap;
	va_start(ap, spec);
	size_t at = 0;
	for (const char *c = spec; *c && at + 1 < len; c++) {
		if (c[0] == '%' && c[1] == 's') {
			at += (size_t)snprintf(fmt + at, len - at, "%%%zus", va_arg(ap, size_t) - 1);
			c++;
		} else {
			fmt[at++] = *c;
		}
		if (at >= len)
			at = len - 1;
	}
	fmt[at] = '\0';
	va_end(ap);
	return fmt;
}

/* A side's call chain: up to SHIM_CHAIN words MODULE:OFFSET, and nothing after them. */
static int parse_chain(const char *rest, struct site *s)
{
	for (;;) {
		char word[128], *colon, *end, fmt[16];
		int used = 0;
		if (sscanf(rest, widths(fmt, sizeof fmt, "%s%n", sizeof word), word, &used) != 1)
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
	char module[sizeof s->module], call[sizeof s->call], fmt[48];
	unsigned long long offset, bytes;
	int ord = 0, n, used = 0;
	if (ordinal)
		n = sscanf(rest, widths(fmt, sizeof fmt, "%s %llx %s %llu %d%n", sizeof module, sizeof call), module,
			   &offset, call, &bytes, &ord, &used);
	else
		n = sscanf(rest, widths(fmt, sizeof fmt, "%s %llx %s %llu", sizeof module, sizeof call), module, &offset,
			   call, &bytes);
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

/* The reading of one plan: the pair its side, chunk and copy lines belong to. */
struct reader {
	struct plan *p;
	struct pair *cur;
	bool ended, sides[2]; /* the current pair's host, device line was read */
};

/* One keyword: how its line is read (the rest of the line, after the keyword and the blanks
 * that follow it), into which field of struct plan for the plain ones, and whether the line
 * is one of the pairs', which the digest covers. A parser returns NULL, or why the line is
 * refused. */
struct key;
typedef const char *(*parse_fn)(struct reader *r, const struct key *k, const char *rest);
struct key {
	const char *name;
	parse_fn parse;
	size_t offset, size;        /* the field, for the plain ones */
	const char *const *values;  /* an enum's words, in the order of its values */
	const char *refused;        /* why a plain one's line is refused */
	bool pairs;                 /* a pair's line, which the digest covers */
};

static void *field(struct reader *r, const struct key *k)
{
	return (char *)r->p + k->offset;
}

/* A module: one word. */
static const char *parse_word(struct reader *r, const struct key *k, const char *rest)
{
	char fmt[16];
	return sscanf(rest, widths(fmt, sizeof fmt, "%s", k->size), (char *)field(r, k)) == 1 ? NULL : k->refused;
}

/* Free text: the rest of the line, cut to the field. */
static const char *parse_text(struct reader *r, const struct key *k, const char *rest)
{
	snprintf(field(r, k), k->size, "%s", rest);
	return NULL;
}

static const char *parse_version(struct reader *r, const struct key *k, const char *rest)
{
	char *end;
	long v = strtol(rest, &end, 10);
	if (*end || v <= 0)
		return k->refused;
	*(int *)field(r, k) = (int)v;
	return NULL;
}

/* strategy, mode: one of the enum's words, the whole rest of the line. */
static const char *parse_enum(struct reader *r, const struct key *k, const char *rest)
{
	for (int v = 0; k->values[v]; v++)
		if (!strcmp(rest, k->values[v])) {
			*(int *)field(r, k) = v;
			return NULL;
		}
	return k->refused;
}

static const char *parse_digest(struct reader *r, const struct key *k, const char *rest)
{
	size_t hex = k->size - 1;
	if (strlen(rest) != hex || strspn(rest, "0123456789abcdef") != hex)
		return k->refused;
	memcpy(field(r, k), rest, k->size);
	return NULL;
}

static const char *parse_marker(struct reader *r, const struct key *k, const char *rest)
{
	(void)k;
	struct plan *p = r->p;
	int every = 1;
	if (parse_site(rest, &p->marker, false) != 0 || (sscanf(rest, "%*s %*s %*s %*s %d", &every) == 1 && every < 1))
		return "marker needs MODULE OFFSET CALL BYTES [EVERY]";
	p->has_marker = true;
	p->marker_every = every;
	return NULL;
}

static const char *parse_pair(struct reader *r, const struct key *k, const char *rest)
{
	(void)k;
	struct plan *p = r->p;
	if (r->cur && !pair_complete(p, r->cur))
		return "the previous pair lacks the lines its mode and strategy need";
	if (p->npairs == MAX_PAIRS)
		return "too many pairs";
	struct pair *cur = r->cur = &p->pairs[p->npairs++];
	unsigned long long bytes;
	char dir[16], fmt[24];
	if (sscanf(rest, widths(fmt, sizeof fmt, "%s %llu %s", sizeof cur->id, sizeof dir), cur->id, &bytes, dir) != 3 ||
	    bytes == 0)
		return "pair needs ID BYTES DIRECTION";
	cur->bytes = bytes;
	cur->chunk[0].bytes = bytes;
	cur->input = !strcmp(dir, "input") || !strcmp(dir, "both");
	cur->output = !strcmp(dir, "output") || !strcmp(dir, "both");
	cur->validate.window = -1;
	if (!cur->input && !cur->output)
		return "a pair's direction is input, output or both";
	r->sides[0] = r->sides[1] = false;
	return NULL;
}

static const char *parse_side(struct reader *r, const struct key *k, const char *rest)
{
	bool host = k->name[0] == 'h';
	struct pair *cur = r->cur;
	if (!cur || r->sides[!host])
		return "a host or device line outside a pair, or twice";
	struct site *s = host ? &cur->host : &cur->device;
	if (parse_site(rest, s, true) != 0 || (host && s->bytes != cur->bytes) || s->bytes < cur->bytes)
		return "a side needs MODULE OFFSET CALL BYTES ORDINAL of the pair's size";
	r->sides[!host] = true;
	*(host ? &cur->has_host : &cur->has_device) = true;
	return NULL;
}

static const char *parse_chunk(struct reader *r, const struct key *k, const char *rest)
{
	(void)k;
	struct pair *cur = r->cur;
	unsigned long long off, bytes;
	if (!cur || cur->nchunks == MAX_CHUNKS - 1)
		return "a chunk line outside a pair, or too many";
	if (sscanf(rest, "%llu %llu", &off, &bytes) != 2 || bytes == 0 || bytes >= cur->bytes || off > cur->bytes - bytes)
		return "a chunk needs OFFSET BYTES inside the pair";
	cur->nchunks++;
	cur->chunk[cur->nchunks].offset = off;
	cur->chunk[cur->nchunks].bytes = bytes;
	return NULL;
}

static const char *parse_copy(struct reader *r, const struct key *k, const char *rest)
{
	(void)k;
	struct pair *cur = r->cur;
	char dir[8] = "", fmt[32];
	if (!cur || cur->ncopies == MAX_COPIES)
		return "a copy line outside a pair, or too many";
	struct site *s = &cur->copy_sites[cur->ncopies];
	/* a chunked copy moves less than the pair (resolve mode times it, and links buffers only
	 * at whole-buffer copies) */
	if (parse_site(rest, s, false) != 0 || s->bytes > cur->bytes ||
	    sscanf(rest, widths(fmt, sizeof fmt, "%*s %*s %*s %*s %s", sizeof dir), dir) != 1 ||
	    (strcmp(dir, "h2d") && strcmp(dir, "d2h")))
		return "a copy needs MODULE OFFSET CALL BYTES h2d|d2h within the pair's size";
	cur->copy_h2d[cur->ncopies++] = dir[0] == 'h';
	return NULL;
}

/* A staged pair (resolve mode): its host side is behind the framework's buffer its copies
 * name (staging.c). */
static const char *parse_staged(struct reader *r, const struct key *k, const char *rest)
{
	(void)k;
	if (!r->cur || r->cur->staged || *rest)
		return "staged: once in a pair, with nothing after it";
	r->cur->staged = true;
	return NULL;
}

static const char *parse_end(struct reader *r, const struct key *k, const char *rest)
{
	(void)k, (void)rest;
	r->ended = true;
	return NULL;
}

/* In the order of enum strategy and enum mode (shim.h). */
static const char *const strategies[] = {"mapped", "managed", "system", "pinned", NULL};
static const char *const modes[] = {"deploy", "measure", "validate", "resolve", NULL};
_Static_assert(STRATEGY_PINNED == 3 && MODE_RESOLVE == 3, "strategies[] and modes[] follow the enums");
_Static_assert(sizeof(enum strategy) == sizeof(int) && sizeof(enum mode) == sizeof(int),
	       "parse_enum stores an int");

#define FIELD(f) offsetof(struct plan, f), sizeof(((struct plan *)0)->f)
static const struct key keys[] = {
	{"exe", parse_word, FIELD(exe), NULL, "exe needs a module", false},
	{"name", parse_text, FIELD(name), NULL, NULL, false},
	{"gpu", parse_text, FIELD(gpu), NULL, NULL, false},
	{"cc", parse_text, FIELD(cc), NULL, NULL, false},
	{"driver", parse_version, FIELD(driver), NULL, "a version must be a positive number", false},
	{"runtime", parse_version, FIELD(runtime), NULL, "a version must be a positive number", false},
	{"strategy", parse_enum, FIELD(strategy), strategies, "unknown strategy", false},
	{"mode", parse_enum, FIELD(mode), modes, "unknown mode", false},
	{"digest", parse_digest, FIELD(digest), NULL, "a digest is 64 lowercase hex digits", false},
	{"marker", parse_marker, 0, 0, NULL, NULL, false},
	{"pair", parse_pair, 0, 0, NULL, NULL, true},
	{"host", parse_side, 0, 0, NULL, NULL, true},
	{"device", parse_side, 0, 0, NULL, NULL, true},
	{"chunk", parse_chunk, 0, 0, NULL, NULL, true},
	{"copy", parse_copy, 0, 0, NULL, NULL, true},
	{"staged", parse_staged, 0, 0, NULL, NULL, true},
	{"end", parse_end, 0, 0, NULL, NULL, false},
};
#undef FIELD

static const struct key *key_named(const char *name)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strcmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}

int shim_parse_plan(const char *text, struct plan *p, char *why, size_t whylen)
{
	memset(p, 0, sizeof *p);
	p->strategy = -1;
	p->mode = -1;
	struct reader r = {.p = p};
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
		if (r.ended)
			return fail(why, whylen, lineno, "text after end");
		char name[16], fmt[16];
		int at = 0;
		if (sscanf(buf, widths(fmt, sizeof fmt, "%s %n", sizeof name), name, &at) != 1)
			return fail(why, whylen, lineno, "no keyword");
		const struct key *k = key_named(name);
		if (k && k->pairs) {
			shim_sha256_add(&pairs_hash, buf, len);
			shim_sha256_add(&pairs_hash, "\n", 1);
		}
		const char *problem = NULL;
		if (lineno == 1)
			problem = strcmp(buf, "echo-plan 1") ? "not a compact Echo plan of version 1" : NULL;
		else
			problem = k ? k->parse(&r, k, buf + at) : "unknown keyword";
		if (problem)
			return fail(why, whylen, lineno, problem);
	}
	if (!r.ended)
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
