/* libdwdemo.so.1: the library of the test package dwdemo. */
#ifndef VERSION
#define VERSION "1.0"
#endif

const char *dwdemo_lib_version(void)
{
	return VERSION;
}
