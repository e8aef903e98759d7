/* first-legal-c: the smallest protocol v1 bot in C99. Answers every request
 * (a line whose first word ends in '?') with its first listed action. */
#include <stdio.h>
#include <string.h>

int main(void)
{
    static char b[1100];
    int cont = 0;                       /* inside an over-long line */
    while (fgets(b, sizeof b, stdin)) {
        size_t n = strcspn(b, " \r\n");
        int whole = strchr(b, '\n') != NULL;
        if (cont) { cont = !whole; continue; }
        cont = !whole;
        if (n > 1 && b[n - 1] == '?' && b[n] == ' ') {
            char *a = b + n + 1;
            a[strcspn(a, " \r\n")] = '\0';
            fputs(a, stdout);
            fputc('\n', stdout);
            fflush(stdout);
        } else if (n == 8 && !memcmp(b, "sixtysix", 8)) {
            if (strncmp(b + 8, " 1", 2) || (b[10] && !strchr(" \r\n", b[10])))
                return 0;
            fputs("ready first-legal-c\n", stdout);
            fflush(stdout);
        } else if (n == 9 && !memcmp(b, "match_end", 9)) {
            return 0;
        }
    }
    return 0;
}
