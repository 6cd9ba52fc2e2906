/* forker - forks a child that sleeps until killed, prints the child's pid on
 * stdout (one line) and exits, so only the child keeps running this file. */
#include <stdio.h>
#include <unistd.h>

#include "ready.h"

int main(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("forker: fork");
		return 1;
	}
	if (pid == 0) {
		close(STDOUT_FILENO); /* the reader sees EOF once the parent is gone */
		dw_signal_ready();
		dw_sleep_forever();
	}
	printf("%d\n", (int)pid);
	return fflush(stdout) ? 1 : 0;
}
