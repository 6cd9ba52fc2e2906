/* dwdemo: the binary of the test package (dwdemo_1.0, dwdemo_2.0), linked
 * against its library libdwdemo.so.1.
 *
 *   dwdemo --version   prints "dwdemo V lib L" and exits
 *   dwdemo --serve     writes that line to /run/dwdemo.version, then
 *                      sleeps until killed (its systemd service)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef VERSION
#define VERSION "1.0"
#endif

const char *dwdemo_lib_version(void);

int main(int argc, char **argv)
{
	FILE *f;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("dwdemo %s lib %s\n", VERSION, dwdemo_lib_version());
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "--serve") != 0) {
		fprintf(stderr, "usage: dwdemo --version|--serve\n");
		return 2;
	}
	f = fopen("/run/dwdemo.version", "w");
	if (!f) {
		perror("/run/dwdemo.version");
		return 1;
	}
	fprintf(f, "dwdemo %s lib %s\n", VERSION, dwdemo_lib_version());
	fclose(f);
	for (;;)
		pause();
}
