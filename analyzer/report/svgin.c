/* svgin: a chart's SVG, as gnuplot's svg terminal writes it, inlined into
 * the page (docs: fpm-analyze(1), THE PAGE).  gnuplot escapes < and & in
 * its text, so every '<' of its file opens a tag; each must be one the
 * terminal writes without `mouse` (no script, no link out, no handler), or
 * the chart is left out. */
#define _GNU_SOURCE /* memmem */
#include "svgin.h"

#include <string.h>

#include "escape.h"

/* The tags the page takes. */
static const char *const SVG_TAGS[] = {"svg", "g", "path", "rect", "circle", "ellipse",
                                       "line", "polyline", "polygon", "text", "tspan", "use",
                                       "defs", "filter", "feFlood", "feComposite", "clipPath",
                                       "title", "desc", NULL};

static int svg_tag_ok(const char *t, size_t n)
{
    size_t k = 1 + (n > 1 && t[1] == '/');
    size_t e = k;
    while (e < n && ((t[e] >= 'a' && t[e] <= 'z') || (t[e] >= 'A' && t[e] <= 'Z')))
        e++;
    int known = 0;
    for (const char *const *w = SVG_TAGS; *w && !known; w++)
        known = strlen(*w) == e - k && memcmp(*w, t + k, e - k) == 0;
    if (!known)
        return 0;
    /* its attributes: no handler (on...), links only within the chart */
    for (size_t i = e; i < n; i++) {
        char c = t[i];
        if (c == '<') /* a tag inside a tag: not gnuplot's */
            return 0;
        if ((c == ' ' || c == '\t' || c == '\n' || c == '\r') && i + 3 < n &&
            (t[i + 1] | 0x20) == 'o' && (t[i + 2] | 0x20) == 'n')
            return 0;
        if (c == 'h' && i + 6 < n && memcmp(t + i, "href=", 5) == 0 && t[i + 6] != '#')
            return 0;
        if (c == 'u' && i + 4 < n && memcmp(t + i, "url(", 4) == 0 && t[i + 4] != '#')
            return 0;
        if (c == ':' && i >= 10 && memcmp(t + i - 10, "javascript:", 11) == 0)
            return 0;
    }
    return 1;
}

/* The tag at s (its '<' to its '>'), or 0 when it does not end. */
static size_t tag_len(const char *s, size_t n)
{
    const char *gt = memchr(s, '>', n);
    return gt ? (size_t)(gt - s) + 1 : 0;
}

/* Whether s[0..n) is white space only: layout between tags (gnuplot's
 * text is never white space alone). */
static int layout(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}


static int starts(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n >= l && memcmp(s, w, l) == 0;
}

/* A tag as it is but for what it need not say: the id of gnuplot's
 * canvas (one per chart, not an id of the page), the line caps and joins
 * SVG draws anyway (butt, miter), the font the page's style names (Arial),
 * a class the page does not style, and each run of white space but one. */
static void tag_out(FILE *out, const char *s, size_t n)
{
    static const char *const DROP[] = {" id=\"gnuplot_canvas\"", " stroke-linecap=\"butt\"",
                                       " stroke-linejoin=\"miter\"", " font-family=\"Arial\"",
                                       " class=\"gridline\""};
    size_t from = 0; /* what is kept as it is from here */
    for (size_t i = 0; i < n;) {
        size_t drop = 0;
        for (size_t k = 0; k < sizeof DROP / sizeof DROP[0] && !drop; k++)
            if (starts(s + i, n - i, DROP[k]))
                drop = strlen(DROP[k]);
        size_t ws = 0;
        while (!drop && i + ws < n && (s[i + ws] == ' ' || s[i + ws] == '\t' ||
                                        s[i + ws] == '\n' || s[i + ws] == '\r'))
            ws++;
        if (!drop && !(ws > 1 || (ws == 1 && s[i] != ' '))) {
            i += ws ? ws : 1;
            continue;
        }
        esc_display_svg(out, s + from, i - from);
        if (!drop)
            fputc(' ', out);
        i += drop ? drop : ws;
        from = i;
    }
    esc_display_svg(out, s + from, n - from);
}

/* The chart's body (what is inside its <svg>), smaller: its own title and
 * description, empty groups, the layout between tags (a line's end) and, but in the
 * page's first chart, the shared <defs> (the markers every chart's points
 * use: one set serves the page, ids being the page's) left out. */
static void svg_body(FILE *out, const char *s, size_t n, int defs)
{
    int newline = 0; /* the last thing written is a line's end */
    for (size_t i = 0; i < n;) {
        if (s[i] != '<') {
            const char *lt = memchr(s + i, '<', n - i);
            size_t l = lt ? (size_t)(lt - (s + i)) : n - i;
            int lay = layout(s + i, l);
            if (lay && !newline)
                fputc('\n', out);
            else if (!lay)
                esc_display_svg(out, s + i, l);
            newline = lay;
            i += l;
            continue;
        }
        size_t t = tag_len(s + i, n - i);
        const char *skip_to = NULL;
        if (starts(s + i, n - i, "<title>"))
            skip_to = "</title>";
        else if (starts(s + i, n - i, "<desc>"))
            skip_to = "</desc>";
        else if (!defs && starts(s + i, n - i, "<defs>"))
            skip_to = "</defs>";
        if (skip_to) {
            const char *e = memmem(s + i, n - i, skip_to, strlen(skip_to));
            i = e ? (size_t)(e - s) + strlen(skip_to) : n;
            continue;
        }
        if (starts(s + i, n - i, "<g ") && s[i + t - 2] != '/') { /* an empty group */
            size_t j = i + t;
            while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
                j++;
            if (starts(s + j, n - j, "</g>")) {
                i = j + 4;
                continue;
            }
        }
        tag_out(out, s + i, t);
        newline = 0;
        i += t;
    }
}

int svgin_write(FILE *out, const char *b, size_t n, const char *label, int keep_defs)
{
    const char *svg = n ? memmem(b, n, "<svg", 4) : NULL;
    const char *end = svg ? memmem(svg, n - (size_t)(svg - b), "</svg>", 6) : NULL;
    int ok = svg && end;
    for (const char *p = svg; ok && p < end + 6;) { /* every tag one it may hold */
        const char *lt = memchr(p, '<', (size_t)(end + 6 - p));
        if (!lt)
            break;
        size_t t = tag_len(lt, (size_t)(end + 6 - lt));
        ok = t && svg_tag_ok(lt, t);
        p = lt + (t ? t : 1);
    }
    if (!ok)
        return -1;
    end += 6;
    const char *tag = memchr(svg, '>', (size_t)(end - svg));
    fputs("<svg class=\"chart\" role=\"img\" aria-label=\"", out);
    esc_html_str(out, label);
    fputc('"', out);
    /* the opening tag's attributes but its namespaces */
    for (const char *q = svg + 4; q < tag;) {
        while (q < tag && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
            q++;
        const char *eq = q;
        while (eq < tag && *eq != '=' && *eq != ' ' && *eq != '\n')
            eq++;
        const char *v = eq < tag && *eq == '=' ? eq + 2 : eq;
        char quote = eq < tag && *eq == '=' ? eq[1] : 0;
        const char *ve = quote && v <= tag ? memchr(v, quote, (size_t)(tag - v)) : eq;
        if (!ve)
            break;
        if (q < ve && strncmp(q, "xmlns", 5) != 0) {
            fputc(' ', out);
            esc_display_svg(out, q, (size_t)(ve + (quote ? 1 : 0) - q));
        }
        q = ve + (quote ? 1 : 0);
    }
    fputc('>', out);
    svg_body(out, tag + 1, (size_t)(end - tag - 1), keep_defs);
    fputc('\n', out);
    return 0;
}
