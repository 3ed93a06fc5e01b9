#ifndef LLMSTER_CREADLINE_SHIM_H
#define LLMSTER_CREADLINE_SHIM_H
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif
