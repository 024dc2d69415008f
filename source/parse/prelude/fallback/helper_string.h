/*
 * Echo's fallback for the CUDA samples' helper_string.h (used only where the tree has none):
 * the command-line and file-path helpers, declared.
 */
#ifndef ECHO_FALLBACK_HELPER_STRING_H
#define ECHO_FALLBACK_HELPER_STRING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STRCASECMP
#define STRCASECMP strcasecmp
#endif
#ifndef STRNCASECMP
#define STRNCASECMP strncasecmp
#endif
#ifndef STRCPY
#define STRCPY(sFilePath, nLength, sPath) strcpy(sFilePath, sPath)
#endif
#ifndef SSCANF
#define SSCANF sscanf
#endif
#ifndef SPRINTF
#define SPRINTF sprintf
#endif

int stringRemoveDelimiter(char delimiter, const char *string);
int getFileExtension(char *filename, char **extension);
bool checkCmdLineFlag(const int argc, const char **argv, const char *string_ref);
int getCmdLineArgumentInt(const int argc, const char **argv, const char *string_ref);
float getCmdLineArgumentFloat(const int argc, const char **argv, const char *string_ref);
bool getCmdLineArgumentString(const int argc, const char **argv, const char *string_ref, char **string_retval);
template <class T> bool getCmdLineArgumentValue(const int argc, const char **argv, const char *string_ref, T *value);
char *sdkFindFilePath(const char *filename, const char *executable_path);

#endif
