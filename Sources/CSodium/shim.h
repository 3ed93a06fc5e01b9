#ifndef LLMSTER_CSODIUM_SHIM_H
#define LLMSTER_CSODIUM_SHIM_H
#include <sodium.h>
#endif
