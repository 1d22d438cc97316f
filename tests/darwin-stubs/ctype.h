/* Stub for make check-darwin. */
#ifndef STUB_CTYPE_H
#define STUB_CTYPE_H
int isalnum(int);
int isalpha(int);
int isdigit(int);
int isprint(int);
int isspace(int);
int isxdigit(int);
int isupper(int);
int islower(int);
int tolower(int);
int toupper(int);
#endif
