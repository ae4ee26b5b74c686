// libFuzzer supplies main(); this links in the Swift target's LLVMFuzzerTestOneInput.
extern int LLVMFuzzerTestOneInput(const unsigned char *data, unsigned long size);
int (*const sluice_fuzz_entry)(const unsigned char *, unsigned long) = LLVMFuzzerTestOneInput;
