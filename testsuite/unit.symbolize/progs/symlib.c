/* Shared library of unit.symbolize's test program: a local function. */
static volatile int lib_sink;

__attribute__((noinline)) static int lib_leaf(int x)
{
	lib_sink += x;
	return lib_sink * 5;
}

int lib_entry(int x)
{
	return lib_leaf(x) + 1;
}
