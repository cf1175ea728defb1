// kernel.ustack/upstream.exp, after systemtap.context/usymfileline: a C++
// function whose entry is at a known line (the probe's uaddr() must map to
// this file, lines 7 to 9).
#include <algorithm>
#include <string>

bool look_for_b()
{
	volatile int first = 1;	// a statement of this file, before inlined library code
	std::string s("cabbage");
	return first && std::find(s.begin(), s.end(), 'b') == s.begin() + 2;
}

int main()
{
	return look_for_b() ? 0 : 1;
}
