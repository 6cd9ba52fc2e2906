/* moldprog: the running program whose output file mold relinks.
 *
 * Built twice, with -DVERSION=1 and -DVERSION=2: the two differ only in
 * the constant version() returns, so mold lays them out alike.  It prints
 * "running V", then calls version() every 50 ms; if its own code changes
 * under it (its file was overwritten in place), it prints "changed V" and
 * exits 3.  After 120 s it prints "timeout" and exits 0.  With an
 * argument (--once), it prints "running V" and exits.
 */
#include <stdio.h>
#include <time.h>

#ifndef VERSION
#define VERSION 1
#endif

__attribute__((noipa)) static int version(void)
{
	return VERSION;
}

int main(int argc, char **argv)
{
	const struct timespec tick = { 0, 50000000L };
	int first = version();

	(void)argv;
	printf("running %d\n", first);
	fflush(stdout);
	if (argc > 1)
		return 0;
	for (int i = 0; i < 2400; i++) {
		int v;

		nanosleep(&tick, NULL);
		v = version();
		if (v != first) {
			printf("changed %d\n", v);
			return 3;
		}
	}
	printf("timeout\n");
	return 0;
}
