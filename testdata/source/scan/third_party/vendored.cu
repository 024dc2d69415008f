// Vendored code: the scan walks past third_party/, so this file is never parsed.
int main(void) { return this is not C; }
