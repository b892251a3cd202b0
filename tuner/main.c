/* tuner: find the fastest shared-memory layout of a CUDA kernel on the GPU in front of it.
   The driver: the command line, the subcommands and the order of a run's phases (tune.h). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdnoreturn.h>
#include <unistd.h>

#include "bundle.h"
#include "listing.h"
#include "merge.h"
#include "models.h"
#include "nvrtc.h"
#include "predict.h"
#include "report.h"
#include "run.h"
#include "search.h"
#include "cache.h"
#include "points.h"
#include "sass.h"
#include "space.h"
#include "spec.h"
#include "tune.h"
#include "util.h"
#include "version.h"

/* the default of -j at most (the number of cores below it) */
#define JOBS_DEFAULT_MAX 16

#define BUNDLE_USAGE "tuner bundle [--out DIR] [-q|-v] RESULTS"
#define MERGE_USAGE "tuner merge [-q|-v] OUT/<kernel>/<gpu>"

static int explain_main(int argc, char **argv);
static int bundle(int argc, char **argv);
static int merge(int argc, char **argv);

/* the subcommands: tuner NAME ... runs run(argc - 1, argv + 1) (argv[0] is NAME); --help
   lists each one's usage line and what it does */
static const struct tool {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;        /* its line of --help's usage */
	const char *about;        /* what it does, in --help's lines */
} tools[] = {
	{"explain", explain_main, "tuner explain [options] CONFIG",
	 "explain: print the bank model's prediction for each variant's declared shared-memory\n"
	 "accesses (docs/bank-model.md) at the config's sizes (or each point's), for --arch,\n"
	 "else the GPU's, else the newest NVRTC knows, and says which; a static model: it\n"
	 "compiles nothing and needs no GPU. explain --sass:\n"
	 "compile each kept variant (--emit ID: that one) and check its shared-memory loads\n"
	 "and stores, as the toolkit's disassembler lists them, against the declared accesses.\n"},
	{"bundle", bundle, BUNDLE_USAGE,
	 "bundle: from the GPU directories of RESULTS (OUT/<kernel>), write one CUDA source and\n"
	 "one header holding every tuned GPU's winner and a portable default, with a function\n"
	 "that picks the entry for the GPU an application runs on (to RESULTS/bundle, or the\n"
	 "--out DIR); needs no GPU.\n"},
	{"merge", merge, MERGE_USAGE,
	 "merge: join the shard-K-of-N results under a GPU directory into the results one\n"
	 "run over every variant would have written there; needs no GPU.\n"},
};
#define NTOOLS (sizeof tools / sizeof *tools)

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: tuner [options] CONFIG\n");
	for (i = 0; i < NTOOLS; i++)
		fprintf(f, "       %s\n", tools[i].usage);
	fprintf(f, "Compile, verify and time every variant of the kernel CONFIG describes, and emit "
	           "the\nfastest as standalone CUDA source under OUT/<kernel>/<gpu>/.\n");
	for (i = 0; i < NTOOLS; i++)
		fputs(tools[i].about, f);
	fprintf(f,
	        "\n"
	        "  -j N            compile with N worker processes (default: the number of cores,\n"
	        "                  at most 16)\n"
	        "  --dry-run       list the kept variants with their launch geometry, count the\n"
	        "                  dropped ones by constraint or limit and say how many programs\n"
	        "                  the kept are; compile nothing\n"
	        "  --list-dropped  also list every dropped variant with its reason (--dry-run,\n"
	        "                  results.json, results.csv)\n"
	        "  --arch sm_XX    compile for this architecture (default: the GPU's, or without one\n"
	        "                  $TUNER_ARCH, else the newest NVRTC supports); timing needs the\n"
	        "                  GPU's own\n"
	        "  --size NAME=N   override a problem size to tune at (repeatable; N decimal or\n"
	        "                  0x hex); NAME=N,N,... tunes at each (several points: a run\n"
	        "                  each, and a best.cu choosing by size); the config's verify\n"
	        "                  sizes keep the file's values\n"
	        "  --sms N         the multiprocessor count expressions see as SMS when there is\n"
	        "                  no GPU (default 1; with a GPU, the GPU's)\n"
	        "  --out DIR       output directory (default: out)\n"
	        "  --cache DIR     compile cache (default: $TUNER_CACHE, else $XDG_CACHE_HOME/tuner,\n"
	        "                  else ~/.cache/tuner)\n"
	        "  --no-cache      compile everything, store nothing\n"
	        "  --emit ID       also write variant ID as OUT/<kernel>/<gpu>/ID.cu and ID.h\n"
	        "  --timeout S     per-variant time limit on the GPU in seconds (default 10)\n"
	        "  --fresh         re-run every variant, ignoring results kept from an earlier run\n"
	        "  --no-race       time every variant with all its samples (by default one whose\n"
	        "                  samples show it beyond the play-off's reach stops early)\n"
	        "  --counters      also read each variant's shared-memory wavefronts and bank\n"
	        "                  conflicts through CUPTI, beside the bank model's prediction\n"
	        );
	fprintf(f,
	        "  --budget N      try at most N variants: N timed (without a GPU: N compiled);\n"
	        "                  'all': every one (default: the config's search.budget, else all;\n"
	        "                  without a GPU all: the config's budget is for timing)\n"
	        "  --strategy S    which variants, in what order: exhaustive (config order),\n"
	        "                  random, or guided (timings so far predict the next;\n"
	        "                  docs/search.md); default: the config's search.strategy, else\n"
	        "                  exhaustive\n"
	        "  --seed N        the random and guided strategies' seed (default 1)\n"
	        "  --midpoints N   with several points: at the midpoint of each two next to each\n"
	        "                  other, time the N variants best at both and their winners, for\n"
	        "                  best.cu's choice between them (default %d; 0: none)\n"
	        "  --devices L     time on these GPUs at once, one worker each: 'all' or numbers\n"
	        "                  as 0,1 (default: device 0); GPUs of one model share a result\n"
	        "                  set, each other model gets a run of its own, side by side\n"
	        "  --shard K/N     try only the K-th of N shares of the kept variants (1 <= K <= N),\n"
	        "                  into OUT/<kernel>/<gpu>/shard-K-of-N; tuner merge joins them\n"
	        "  --t4            also write OUT/<kernel>/<gpu>/results.t4.json: the results in\n"
	        "                  the T4 format (Open Autotuning Results Schema 1.0.0, as Kernel\n"
	        "                  Tuner writes it)\n"
	        "  --all           every row of the table (default: the first 20)\n"
	        "  --sass          (explain) compile each kept variant (--budget N: N spread over\n"
	        "                  them; for the GPU's architecture, as --arch) and check its\n"
	        "                  shared-memory loads and stores, as nvdisasm or cuobjdump lists\n"
	        "                  them, against the declared accesses; exit 1 where one differs\n"
	        "  -q, --quiet     print only errors, the winner, and that nothing was timed\n"
	        "                  where nothing was\n"
	        "  -v, --verbose   also every row of the table, uncut, the dropped variants in it,\n"
	        "                  the tie rule in full, compile logs and each phase's time\n"
	        "  -h, --help      this text\n"
	        "  -V, --version   print the version\n\n"
	        "exit status: 0 success (variants that failed are counted in the summary),\n"
	        "1 no variant verified (on a GPU), 2 usage or config error (also: no variant\n"
	        "compiles), 130 interrupted (SIGINT or SIGTERM)\n", MID_DEFAULT);
}

/* a command-line error: the message, the usage, exit status 2 */
static noreturn void bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static noreturn void bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(EXIT_USAGE);
}

/* a subcommand's command-line error: the message and its one usage line (not the whole
   help), exit status 2 */
static noreturn void bad_sub(const char *use, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static noreturn void bad_sub(const char *use, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "usage: %s (tuner --help says more)\n", use);
	exit(EXIT_USAGE);
}

/* optarg of option opt, refused when it is empty or blank */
static const char *value(const char *opt)
{
	const char *p;

	for (p = optarg; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
		;
	if (!*p)
		fatal("%s: an empty or blank value ('%s')", opt, optarg);
	return optarg;
}

/* the long options' codes (after the short ones') */
enum { O_DRY = 256, O_ARCH, O_SIZE, O_OUT, O_CACHE, O_NOCACHE, O_EMIT, O_TIMEOUT, O_FRESH,
       O_COUNTERS, O_NORACE, O_SMS, O_BUDGET, O_STRATEGY, O_SEED, O_SHARD, O_DEVICES,
       O_T4, O_LISTDROP, O_ALL, O_SASS, O_MID };

/* an option with a number for its value (-j, --sms, --budget, --midpoints, --seed, --shard,
   --timeout)
   into o; 0 if ch is not one */
static int number_option(int ch, const char *arg, struct run_opts *o)
{
	char *end;
	long n;

	errno = 0;
	switch (ch) {
	case 'j':
		n = strtol(arg, &end, 10);
		if (errno || *end || n < 1 || n > 1024)
			fatal("-j: '%s' is not a number from 1 to 1024", arg);
		o->jobs = (int)n;
		return 1;
	case O_SMS:
		n = strtol(arg, &end, 10);
		if (errno || *end || n < 1 || n > 100000)
			fatal("--sms: '%s' is not a number from 1 to 100000", arg);
		o->sms = n;
		return 1;
	case O_BUDGET: {
		unsigned long long b;
		o->budget_set = 1;
		if (!strcmp(arg, "all")) { /* none, whatever the config's search says */
			o->budget = 0;
			return 1;
		}
		b = strtoull(arg, &end, 10);
		if (errno || *end || arg[0] == '-' || b < 1 || b > 1000000000ULL)
			fatal("--budget: '%s' is not a number of variants from 1 to 1000000000", arg);
		o->budget = (size_t)b;
		return 1;
	}
	case O_MID:
		n = strtol(arg, &end, 10);
		if (errno || *end || !arg[0] || n < 0 || n > MID_MAX)
			fatal("--midpoints: '%s' is not a number of variants from 0 to %d", arg, MID_MAX);
		o->mid = (size_t)n;
		return 1;
	case O_SEED:
		o->seed = strtoull(arg, &end, 10);
		if (errno || *end || arg[0] == '-' || !arg[0] || o->seed > INT64_MAX)
			fatal("--seed: '%s' is not a non-negative number of at most %lld (results.json "
			      "keeps it, and reads back no larger integer)", arg, (long long)INT64_MAX);
		return 1;
	case O_SHARD: {
		long k, nn;
		k = strtol(arg, &end, 10);
		if (errno || end == arg || *end != '/' || k < 1)
			fatal("--shard: '%s' is not K/N with 1 <= K <= N", arg);
		nn = strtol(end + 1, &end, 10);
		if (errno || *end || nn < 1 || nn > 100000 || k > nn)
			fatal("--shard: '%s' is not K/N with 1 <= K <= N <= 100000", arg);
		o->shard_k = (int)k;
		o->shard_n = (int)nn;
		return 1;
	}
	case O_TIMEOUT:
		o->timeout = strtod(arg, &end);
		if (errno || *end || !(o->timeout >= 0.01 && o->timeout <= 86400))
			fatal("--timeout: '%s' is not a number of seconds from 0.01 to 86400", arg);
		return 1;
	}
	return 0;
}

/* the options' defaults */
static void opts_default(struct run_opts *o)
{
	o->outdir = "out";
	o->seed = 1;
	o->timeout = 10;
	o->mid = MID_DEFAULT;
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
	/* more NVRTC processes than this compiled no faster on a 16-core host and slower on a
	   64-core one (docs/benchmarks.md, "Tuning speed"): -j asks for more */
	if (o->jobs > JOBS_DEFAULT_MAX)
		o->jobs = JOBS_DEFAULT_MAX;
}

/* what the options say together: --emit with --dry-run refused, TUNER_ARCH, the arch known */
static void opts_check(struct run_opts *o)
{
	if (o->emit && o->dry_run)
		fatal("--emit %s with --dry-run: a dry run compiles and writes nothing; leave out "
		      "--dry-run to write %s.cu and %s.h", o->emit, o->emit, o->emit);
	if (!o->arch && getenv("TUNER_ARCH") && *getenv("TUNER_ARCH")) {
		o->arch = getenv("TUNER_ARCH");
		o->arch_from = "TUNER_ARCH";
	}
	if (o->arch && !nv_arch_supported(o->arch))
		fatal("%s: '%s' is not an architecture NVRTC %s supports (newest: %s)",
		      o->arch_from ? o->arch_from : "--arch", o->arch, nv_version(), nv_newest_arch());
}

static void parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option lo[] = {
		{"dry-run", no_argument, 0, O_DRY},   {"arch", required_argument, 0, O_ARCH},
		{"size", required_argument, 0, O_SIZE}, {"out", required_argument, 0, O_OUT},
		{"cache", required_argument, 0, O_CACHE}, {"no-cache", no_argument, 0, O_NOCACHE},
		{"emit", required_argument, 0, O_EMIT}, {"quiet", no_argument, 0, 'q'},
		{"timeout", required_argument, 0, O_TIMEOUT}, {"fresh", no_argument, 0, O_FRESH},
		{"counters", no_argument, 0, O_COUNTERS}, {"no-race", no_argument, 0, O_NORACE},
		{"sms", required_argument, 0, O_SMS}, {"budget", required_argument, 0, O_BUDGET},
		{"strategy", required_argument, 0, O_STRATEGY}, {"seed", required_argument, 0, O_SEED},
		{"shard", required_argument, 0, O_SHARD}, {"devices", required_argument, 0, O_DEVICES},
		{"t4", no_argument, 0, O_T4}, {"list-dropped", no_argument, 0, O_LISTDROP},
		{"all", no_argument, 0, O_ALL}, {"sass", no_argument, 0, O_SASS},
		{"midpoints", required_argument, 0, O_MID},
		{"verbose", no_argument, 0, 'v'},     {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},     {0, 0, 0, 0},
	};
	int ch;

	opts_default(o);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":j:qvhV", lo, NULL)) != -1) {
		if (number_option(ch, optarg, o))
			continue;
		switch (ch) {
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("tuner %s (NVRTC %s)\n", TUNER_VERSION, nv_version()); exit(0);
		case O_DRY: o->dry_run = 1; break;
		case O_LISTDROP: o->list_dropped = 1; break;
		case O_ALL: o->all = 1; break;
		case O_SASS: o->sass = 1; break;
		case O_ARCH: o->arch = value("--arch"); break;
		case O_SIZE:
			o->sizes = xreallocarray(o->sizes, o->nsizes + 1, sizeof *o->sizes);
			o->sizes[o->nsizes++] = (char *)value("--size");
			break;
		case O_OUT: o->outdir = value("--out"); break;
		case O_CACHE: o->cachedir = value("--cache"); break;
		case O_NOCACHE: o->no_cache = 1; break;
		case O_EMIT: o->emit = value("--emit"); break;
		case O_FRESH: o->fresh = 1; break;
		case O_COUNTERS: o->counters = 1; break;
		case O_NORACE: o->no_race = 1; break;
		case O_STRATEGY:
			if ((o->strategy = search_strategy(optarg)) < 0)
				fatal("--strategy: '%s' is none of exhaustive, random, guided", optarg);
			o->strategy_set = 1;
			break;
		case O_DEVICES: o->devices = value("--devices"); break;
		case O_T4: o->t4 = 1; break;
		case ':':
			bad_usage("tuner: option '%s' needs a value\n", argv[optind - 1]);
		default:
			bad_usage("tuner: unknown option '%s'\n", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		bad_usage(optind < argc ? "tuner: one CONFIG at a time\n" : "tuner: no CONFIG given\n");
	o->config = argv[optind];
	opts_check(o);
}

/* tuner bundle [--out DIR] [-q|-v] RESULTS */
static int bundle(int argc, char **argv)
{
	static const struct option lo[] = {
		{"out", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
		{"verbose", no_argument, 0, 'v'},   {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *out = NULL;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":qvh", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': out = value("--out"); break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			bad_sub(BUNDLE_USAGE, "tuner: option '%s' needs a value\n", argv[optind - 1]);
		default:
			bad_sub(BUNDLE_USAGE, "tuner: bundle: unknown option '%s'\n", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		bad_sub(BUNDLE_USAGE, "tuner: bundle: %s\n", optind < argc ? "one RESULTS directory "
		        "at a time" : "no RESULTS directory given");
	bundle_make(argv[optind], out);
	return 0;
}

/* tuner merge [-q|-v] DIR */
static int merge(int argc, char **argv)
{
	static const struct option lo[] = {
		{"quiet", no_argument, 0, 'q'}, {"verbose", no_argument, 0, 'v'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":qvh", lo, NULL)) != -1) {
		switch (ch) {
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': usage(stdout); exit(0);
		default:
			bad_sub(MERGE_USAGE, "tuner: merge: unknown option '%s'\n", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		bad_sub(MERGE_USAGE, "tuner: merge: %s\n", optind < argc ? "one GPU directory at a "
		        "time" : "no GPU directory (OUT/<kernel>/<gpu>) given");
	return merge_run(argv[optind]);
}

/* the architecture explain prices (or, with --sass, compiles) for: --arch (or TUNER_ARCH),
   else the GPU's as a timed run's (asked once), else the newest NVRTC knows; where it comes
   from into why; --sass says it on the first call */
static const char *explain_arch(const struct run *t, const char **why)
{
	static char arch[32], gpu[256], from[320], *got;
	const char *as = t->o.arch_from ? t->o.arch_from : "--arch";

	*why = from;
	if (got)
		return got;
	if (t->o.arch) {
		snprintf(arch, sizeof arch, "%s", t->o.arch);
		snprintf(from, sizeof from, "as %s says", as);
	} else if (models_arch(t->o.devices, arch, sizeof arch, gpu, sizeof gpu) == 0 &&
	           nv_arch_supported(arch)) {
		snprintf(from, sizeof from, "the GPU's (%s)", gpu);
	} else {
		if (arch[0] && t->o.sass)
			printf("tuner explain --sass: the GPU's %s is not an architecture NVRTC %s "
			       "supports\n", arch, nv_version());
		snprintf(from, sizeof from, "the newest NVRTC knows (%s; --arch sm_XX names another)",
		         arch[0] ? "not the GPU's" : "no GPU");
		snprintf(arch, sizeof arch, "%s", nv_newest_arch());
	}
	if (t->o.sass)
		printf("tuner explain --sass: compiling for %s, %s\n", arch, from);
	return got = arch;
}

/* tuner explain: the bank model's prediction for each kept variant; nothing compiled */
static int explain(struct run *t)
{
	const char *why, *arch = explain_arch(t, &why);

	if (!t->c->naccesses)
		fatal("%s: no 'accesses' declared: nothing to explain (docs/config.md)", t->c->path);
	space_arch_limits(arch, &t->lim);
	space_expand(t->c, &t->sizes, &t->lim, &t->s);
	t->r = xcalloc(t->s.n ? t->s.n : 1, sizeof *t->r);
	if (t->o.sass) {
		char *cache = t->o.no_cache ? NULL : t->o.cachedir ? xstrdup(t->o.cachedir)
		                                                   : cache_default_dir();
		int rc = sass_explain(t->c, &t->s, t->o.emit, t->o.budget_set ? t->o.budget : 0, arch,
		                      cache, t->o.jobs);
		free(cache);
		return rc;
	}
	predict_bank(t->c, &t->s, nv_arch_cc(arch), t->r, t->o.jobs, NULL);
	predict_explain(t->c, &t->s, t->r, arch, why, t->label);
	return 0;
}

/* 1 if t's kept variants are f's, id for id */
static int same_space(const struct run *t, const struct run *f)
{
	size_t i;

	if (t->s.n != f->s.n || t->s.nkept != f->s.nkept)
		return 0;
	for (i = 0; i < t->s.n; i++)
		if (strcmp(t->s.v[i].id, f->s.v[i].id) || !t->s.v[i].drop != !f->s.v[i].drop)
			return 0;
	return 1;
}

/* tuner explain at each of t's points (t loaded at the first), each named; the worst exit
   status */
static int explain_points(struct run *t)
{
	size_t i;
	int rc = 0;
	struct run first = {0};

	for (i = 0; i < t->npoints && !run_stop; i++) {
		struct run tp;
		int r = 0;
		points_load(&tp, t, i);
		printf("%stuner explain: point %zu of %zu: %s\n", i ? "\n" : "", i + 1, t->npoints,
		       tp.label);
		fflush(stdout);
		if (i && !t->o.sass && !predict_sees_sizes(tp.c)) { /* the prediction of point 1? */
			const char *why, *arch = explain_arch(&tp, &why);
			space_arch_limits(arch, &tp.lim);
			space_expand(tp.c, &tp.sizes, &tp.lim, &tp.s);
			if (same_space(&tp, &first)) {
				printf("the same %zu variants as at point 1, and the bank model sees no size: "
				       "the same prediction\n", tp.s.nkept);
				tune_free(&tp);
				continue;
			}
			space_free(&tp.s);
			memset(&tp.s, 0, sizeof tp.s);
		}
		r = explain(&tp);
		rc = r > rc ? r : rc;
		if (i == 0)
			first = tp; /* its space, to compare the later points' with */
		else
			tune_free(&tp);
	}
	if (first.c)
		tune_free(&first);
	return run_stop ? EXIT_INTERRUPT : rc;
}

/* t's options from argv (argv[0]: the program or the subcommand) and its config loaded;
   --sass only where sass_ok (tuner explain) */
static void load(struct run *t, int argc, char **argv, int sass_ok)
{
	t->t0 = now_s();
	parse_args(argc, argv, &t->o);
	if (t->o.sass && !sass_ok)
		bad_usage("--sass is an option of tuner explain");
	run_catch_signals();
	tune_load(t);
	run_phase(t, "load");
}

/* tuner explain [options] CONFIG */
static int explain_main(int argc, char **argv)
{
	static struct run t;
	int rc;

	load(&t, argc, argv, 1);
	rc = t.npoints > 1 ? explain_points(&t) : explain(&t);
	tune_free(&t);
	return rc;
}

int main(int argc, char **argv)
{
	static struct run t;
	size_t i;
	int rc;

	for (i = 0; argc > 1 && i < NTOOLS; i++)
		if (!strcmp(argv[1], tools[i].name))
			return tools[i].run(argc - 1, argv + 1);
	load(&t, argc, argv, 0);
	if ((rc = models_split(&t, 0)) >= 0) { /* GPUs of several models: a run each, ended */
		tune_free(&t);
		return rc;
	}
	if (t.npoints > 1) /* a run each */
		return points_run(&t);
	tune_target(&t);
	tune_expand(&t);
	if (run_stop) {
		note(0, "tuner: interrupted before compiling; nothing written\n");
		tune_free(&t);
		return EXIT_INTERRUPT;
	}
	if (t.o.dry_run) {
		listing_print(stdout, t.c, &t.s, t.o.list_dropped, t.obs);
		if (verbosity >= 1) {
			char what[256];
			tune_search_text(&t, what, sizeof what);
			printf("%s\n", what);
		}
		tune_free(&t);
		return 0;
	}
	tune_run(&t);
	rc = tune_finish(&t);
	run_phase(&t, "finish");
	tune_free(&t);
	return rc;
}
