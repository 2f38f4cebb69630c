// SPDX-License-Identifier: Apache-2.0
// A stand-in libtilejit_runtime.so from a future ABI: the Python binding must refuse to use it.
int tj_runtime_version(void);
int tj_runtime_version(void) { return 1000; }
