/* test_rep_doc.c — report/doc.h's Markdown text and report/util.h's number
 * cells, with the exact bytes written out by hand:
 * - rep_md_escape: each of \ ` * _ [ ] < > | # gets a backslash, except an
 *   underscore between two alphanumerics; line breaks become spaces.
 * - rep_md_code: a fence one backtick longer than the longest run inside,
 *   padded with spaces when the text holds or starts with a backtick.
 * - rep_doc_markdown: headings, paragraphs, numbered and bullet lists,
 *   fenced code (a longer fence around ```), tables ('|' in a cell escaped,
 *   line breaks as spaces, "---:" for right-aligned columns).
 * - rep_fmt in one pass and in two (text longer than the small block).
 * - rep_u64 at 0 and UINT64_MAX; rep_pct and rep_fixed as printf's "%.1f"
 *   (ties at an exact binary half go to the even digit), "n/a" for a zero
 *   denominator or a value that is not finite. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report/doc.h"
#include "report/util.h"
#include "tests/unit/t.h"

static void test_escape_and_code(void)
{
    rep_doc *d = rep_doc_new();
    T_EQ_STR(rep_md_escape(d, "a_b _c d_ [x](y) <t> *s* `q` | # \\"),
             "a_b \\_c d\\_ \\[x\\](y) \\<t\\> \\*s\\* \\`q\\` \\| \\# \\\\");
    T_EQ_STR(rep_md_escape(d, "line\none\rtwo"), "line one two");
    T_EQ_STR(rep_md_escape(d, NULL), "");
    T_EQ_STR(rep_md_escape(d, "\xc3\xa9_\xc3\xa9"), "\xc3\xa9\\_\xc3\xa9");   /* é is not ASCII alnum */
    T_EQ_STR(rep_md_code(d, "s_load x"), "`s_load x`");
    T_EQ_STR(rep_md_code(d, "a`b"), "`` a`b ``");
    T_EQ_STR(rep_md_code(d, "``x`"), "``` ``x` ```");
    T_EQ_STR(rep_md_code(d, "a\nb|c"), "`a b|c`");
    T_EQ_STR(rep_md_code(d, ""), "``");
    rep_doc_free(d);
}

static void test_markdown(void)
{
    rep_doc *d = rep_doc_new();
    rep_heading(d, 2, "Title %d", 7);
    rep_para(d, "%s", "Para with | bar.");
    rep_item(d, 1, "first");
    rep_item(d, 1, "second");
    rep_item(d, 0, "bullet");
    rep_code(d, "sh", "echo ```\n");
    rep_code(d, "", "x");
    rep_table *t = rep_table_new(d, "lr", "name", "cycles", (const char *)NULL);
    rep_table_row(t, "a|b", "12", (const char *)NULL);
    rep_table_row(t, "two\nlines", (const char *)NULL);              /* missing cell: empty */
    rep_raw(d, "raw block\n\n\n");
    kr_buf out;
    kr_buf_init(&out);
    rep_doc_markdown(d, &out);
    T_EQ_STR(kr_buf_cstr(&out),
             "## Title 7\n\n"
             "Para with | bar.\n\n"
             "1. first\n"
             "2. second\n\n"
             "- bullet\n\n"
             "````sh\necho ```\n````\n\n"
             "```\nx\n```\n\n"
             "| name | cycles |\n"
             "|---|---:|\n"
             "| a\\|b | 12 |\n"
             "| two lines |  |\n\n"
             "raw block\n\n");
    kr_buf_free(&out);

    /* rep_fmt: short text in one pass, long text in two */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const char *s = rep_fmt(d, "<%s|%d>", big, 42);
    T_EQ_U64(strlen(s), sizeof big - 1 + 5);
    T_CHECK(s[0] == '<' && strcmp(s + sizeof big, "|42>") == 0);
    T_EQ_STR(rep_fmt(d, "%s", "plain"), "plain");
    T_EQ_STR(rep_fmt(d, "%05.1f|%-3s|", 2.25, "a"), "002.2|a  |");
    T_EQ_STR(rep_strn(d, "abcdef", 3), "abc");
    rep_doc_free(d);
}

static void test_numbers(void)
{
    rep_doc *d = rep_doc_new();
    T_EQ_STR(rep_u64(d, 0), "0");
    T_EQ_STR(rep_u64(d, 1482216), "1482216");
    T_EQ_STR(rep_u64(d, UINT64_MAX), "18446744073709551615");
    T_EQ_STR(rep_pct(d, 1, 3), "33.3 %");
    T_EQ_STR(rep_pct(d, 2, 3), "66.7 %");
    T_EQ_STR(rep_pct(d, 1, 16), "6.2 %");         /* 6.25 exactly: tie to the even 2 */
    T_EQ_STR(rep_pct(d, 3, 16), "18.8 %");        /* 18.75 exactly: tie to the even 8 */
    T_EQ_STR(rep_pct(d, 5, 5), "100.0 %");
    T_EQ_STR(rep_pct(d, 0, 7), "0.0 %");
    T_EQ_STR(rep_pct(d, 7, 0), "n/a");
    T_EQ_STR(rep_pct(d, UINT64_MAX, 1), "1844674407370955161600.0 %");
    T_EQ_STR(rep_fixed(d, 2213.2512, 2), "2213.25");
    T_EQ_STR(rep_fixed(d, 1519.75, 1), "1519.8");
    T_EQ_STR(rep_fixed(d, -0.04, 1), "-0.0");
    T_EQ_STR(rep_fixed(d, 0.5, 0), "0");
    T_EQ_STR(rep_fixed(d, NAN, 2), "n/a");
    T_EQ_STR(rep_fixed(d, -INFINITY, 2), "n/a");
    rep_doc_free(d);
}

int main(void)
{
    test_escape_and_code();
    test_markdown();
    test_numbers();
    return t_done("test_rep_doc");
}
