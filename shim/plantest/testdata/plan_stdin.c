/*
 * The shim's compact-plan parser alone (shim/plan.c), for FuzzShimPlan (shim/plantest):
 * reads a plan from stdin, parses it as the shim would, and prints what it read, field by
 * field, or "refused: " and why. Exit 0 either way; a crash (or a sanitizer's report) is
 * what the fuzzer looks for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../shim.h"

static char text[SHIM_MAX_PLAN_BYTES + 1];
static struct plan plan;

static void site(const char *what, const struct site *s)
{
	printf("%s %s %" PRIx64 " %s %" PRIu64 " %d", what, s->module, s->offset, s->call, s->bytes, s->ordinal);
	for (int i = 0; i < s->nchain; i++)
		printf(" %s:%" PRIx64, s->chain[i].module, s->chain[i].offset);
	printf("\n");
}

int main(void)
{
	size_t n = fread(text, 1, SHIM_MAX_PLAN_BYTES, stdin);
	text[n] = '\0';
	char why[256];
	if (shim_parse_plan(text, &plan, why, sizeof why) != 0) {
		printf("refused: %s\n", why);
		return 0;
	}
	const struct plan *p = &plan;
	printf("exe %s\nname %s\ngpu %s\ncc %s\ndriver %d\nruntime %d\nstrategy %d\nmode %d\n", p->exe, p->name,
	       p->gpu, p->cc, p->driver, p->runtime, (int)p->strategy, (int)p->mode);
	printf("digest %s ok %d\n", p->digest, p->digest_ok);
	if (p->has_marker) {
		site("marker", &p->marker);
		printf("every %d\n", p->marker_every);
	}
	for (int i = 0; i < p->npairs; i++) {
		const struct pair *c = &p->pairs[i];
		printf("pair %s %" PRIu64 " input %d output %d window %d\n", c->id, c->bytes, c->input, c->output,
		       c->validate.window);
		if (c->has_host)
			site("host", &c->host);
		if (c->has_device)
			site("device", &c->device);
		for (int k = 0; k <= c->nchunks; k++)
			printf("chunk %" PRIu64 " %" PRIu64 "\n", c->chunk[k].offset, c->chunk[k].bytes);
		for (int k = 0; k < c->ncopies; k++) {
			site("copy", &c->copy_sites[k]);
			printf("h2d %d\n", c->copy_h2d[k]);
		}
	}
	return 0;
}
