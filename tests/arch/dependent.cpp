// A dependent of one library (tests/arch/CMakeLists.txt); never built. arch.py takes its compile
// flags from compile_commands.json to compile the library's headers as its dependents would.
int pmix_arch_dependent;
