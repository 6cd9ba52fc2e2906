/*
 * dwb-dlopen PLUGIN ITERS WARMUP - time ITERS dlopen(RTLD_NOW)+dlclose of
 * PLUGIN after WARMUP untimed ones, print the nanoseconds on stdout.
 * dwbench is static and cannot dlopen; this helper is dynamic, as every
 * program that loads plugins is.  Exit 1 on any failure.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*fn)(void);

	if (!h) {
		fprintf(stderr, "dwb-dlopen: %s\n", dlerror());
		return -1;
	}
	*(void **)&fn = dlsym(h, "dwbplugin_value");
	if (!fn || fn() != 9) {
		fprintf(stderr, "dwb-dlopen: dwbplugin_value missing or wrong\n");
		dlclose(h);
		return -1;
	}
	if (dlclose(h)) {
		fprintf(stderr, "dwb-dlopen: dlclose: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long iters, warmup, i;
	long long t0;

	if (argc != 4) {
		fprintf(stderr, "usage: dwb-dlopen PLUGIN ITERS WARMUP\n");
		return 2;
	}
	iters = atol(argv[2]);
	warmup = atol(argv[3]);
	for (i = 0; i < warmup; i++)
		if (load(argv[1]))
			return 1;
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		if (load(argv[1]))
			return 1;
	printf("%lld\n", now_ns() - t0);
	return 0;
}
