/* The header is the module; there is nothing to compile. */
