/* tests/fuzz/fuzz_report_junit.c: libFuzzer harness for the JUnit reader of
 * `onnxop report` (cli/results.c, linked from cli.a); what reads is written
 * as JUnit and as JSON and read back (report_check.h). */
#include "report_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return check_report(ox_report_read_junit, data, size);
}
