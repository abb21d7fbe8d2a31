/* A shared object that is not a Mattebox plugin at all. */
__attribute__((visibility("default"))) int some_other_library_function(void) { return 42; }
