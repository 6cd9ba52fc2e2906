/* sleeper - sleeps until killed.  Also usable as a #! interpreter: all
 * arguments are ignored. */
#include "ready.h"

int main(void)
{
	dw_signal_ready();
	dw_sleep_forever();
}
