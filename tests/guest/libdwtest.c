/* libdwtest.so - a tiny shared library that dynsleep links against. */
int dwtest_lib_value(void);

int dwtest_lib_value(void)
{
	return 42;
}
