/*
 * The C++ standard library's common headers, precompiled once per set of flags for every C++
 * and CUDA file (echo_cuda_pch.h adds the CUDA prelude before them). They are here for speed,
 * not because a compiler gives them: clang does not dump declarations it read from a
 * precompiled header, and a file that includes <iostream> or <vector> itself then finds them
 * already read (their include guards) instead of dumping them again, tens to hundreds of
 * megabytes of JSON a file (3.5 GB for 60 of HeCBench's programs, 0.34 GB with these).
 * Declaring more can only make a name the file did not declare visible: a call that then
 * resolves into the library reaches no body the proofs can follow (the pair is declined), and
 * an ambiguity is a clang error that declines the function's pairs (broken.go); neither
 * proves what the file's own headers would not. C files get none: C has no namespace to keep
 * the library's names out of the file's way.
 */
#ifndef ECHO_SOURCE_CXX_STD_H
#define ECHO_SOURCE_CXX_STD_H

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cassert>
#include <cfloat>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <sstream>
#include <stack>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#endif
