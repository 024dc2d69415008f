/*
 * Echo's fallback for the CUDA samples' helper_functions.h (used only where the tree has none):
 * what it gathers, the string, timer and image helpers.
 */
#ifndef ECHO_FALLBACK_HELPER_FUNCTIONS_H
#define ECHO_FALLBACK_HELPER_FUNCTIONS_H

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helper_string.h"
#include "helper_timer.h"
#include "helper_image.h"

#endif
