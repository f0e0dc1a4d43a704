/* md_advice.c — the "Recommendations" section and its analysis.json array. */
#include <inttypes.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/fmt.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"
#include "report/util.h"

void rep_md_advice(rep_doc *d, const an_advice *const *r, const kr_capture *const *caps,
                   const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Recommendations");
    const char *t = rep_template("advice.md", NULL);
    if (t)
        rep_raw(d, t);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 3, "%s", rep_md_escape(d, labels[i]));
        if (r[i]->n == 0) {
            rep_para(d, "No rule fired: no stall group reaches %.0f %% of the stall cycles and no "
                        "structural limit was found.", 100.0 * AN_ADVICE_MIN_SHARE);
            continue;
        }
        for (size_t k = 0; k < r[i]->n; k++) {
            const an_advice_item *it = &r[i]->items[k];
            kr_buf rows;
            kr_buf_init(&rows);
            for (size_t j = 0; j < it->nrows; j++) {
                const kr_code_row *row = &caps[i]->rows[it->rows[j]];
                kr_buf_printf(&rows, "%svaddr %" PRIu64 " %s (%" PRIu64 " stall cycles", j ? "; " : " Top: ",
                              row->vaddr, rep_md_code(d, row->isa), row->stall);
                if (row->nframes && row->frames[0].line)
                    kr_buf_printf(&rows, ", %s", rep_md_code(d, rep_fmt(d, "%s:%u", kr_path_base(row->frames[0].path),
                                                                         row->frames[0].line)));
                kr_buf_puts(&rows, ")");
            }
            rep_item(d, 1, "**%s** %s *Evidence:* %s.%s `[%s]`", rep_md_escape(d, it->title),
                     rep_md_escape(d, it->action), rep_md_escape(d, it->summary), kr_buf_cstr(&rows), it->id);
            kr_buf_free(&rows);
        }
    }
}

void rep_jw_advice(rep_jw *w, const char *key, const an_advice *r)
{
    rep_jw_arr(w, key);
    for (size_t k = 0; k < r->n; k++) {
        const an_advice_item *it = &r->items[k];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "rank", k + 1);
        rep_jw_str(w, "id", it->id);
        rep_jw_str(w, "title", it->title);
        rep_jw_str(w, "action", it->action);
        rep_jw_str(w, "evidence", it->evidence);
        rep_jw_uint(w, "stall_cycles", it->cycles);
        if (it->share < 0)
            rep_jw_null(w, "share");
        else
            rep_jw_real(w, "share", it->share);
        rep_jw_arr(w, "rows");
        for (size_t j = 0; j < it->nrows; j++)
            rep_jw_int(w, NULL, it->rows[j]);
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
}

json_t *rep_json_advice(const an_advice *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_advice(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
