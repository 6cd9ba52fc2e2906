/* dwb-true (static) and dwb-true-dyn (dynamic, ld.so + libc): do nothing,
 * exit 0.  What fork+exec+wait and the configure workload run. */
int main(void)
{
	return 0;
}
