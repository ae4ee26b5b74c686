// No public headers: the entry point is LLVMFuzzerTestOneInput.
