/* SVG character document (native): libxml2 parse with the size, depth and
 * entity-expansion caps, then the document as a plain element list for the
 * shared loader (load.c: Pose Animator's conventions, geometry, binding),
 * and preparation of the tree for write-back (write.c): the hidden
 * elements get display="none", each path remembers its libxml2 node.
 */
#include "svg_internal.h"

#include <libxml/entities.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* libxml2's own element depth cap without XML_PARSE_HUGE (2.9: 256). */
#define LIBXML_DEFAULT_MAX_DEPTH 256

static void free_doc(void *doc) { xmlFreeDoc((xmlDocPtr)doc); }

typedef struct elem_list {
    skf_svg_element *e;
    xmlNodePtr *node;
    size_t count, cap;
} elem_list;

static void elem_list_release(elem_list *l)
{
    for (size_t i = 0; i < l->count; ++i)
        for (int a = 0; a < SKF_SVG_ATTR_COUNT; ++a)
            if (l->e[i].attrs[a])
                xmlFree((xmlChar *)l->e[i].attrs[a]);
    skf_free(l->e);
    skf_free(l->node);
    memset(l, 0, sizeof *l);
}

/* The element nodes under root in document order (pre-order, iterative),
 * with the attributes the loader reads (entities expanded by xmlGetProp). */
static bool elem_list_build(elem_list *l, xmlNodePtr root)
{
    xmlNodePtr n = root;
    long parent = -1;
    while (n) {
        if (l->count == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 256;
            skf_svg_element *e = skf_realloc_array(l->e, cap, sizeof *e);
            if (e)
                l->e = e;
            xmlNodePtr *nd = e ? skf_realloc_array(l->node, cap, sizeof *nd) : NULL;
            if (!e || !nd)
                return false;
            l->node = nd;
            l->cap = cap;
        }
        size_t i = l->count++;
        skf_svg_element *e = &l->e[i];
        memset(e, 0, sizeof *e);
        l->node[i] = n;
        e->name = (const char *)n->name;
        e->parent = (int)parent;
        e->line = xmlGetLineNo(n);
        for (int a = 0; a < SKF_SVG_ATTR_COUNT; ++a)
            e->attrs[a] = (const char *)xmlGetProp(n, (const xmlChar *)skf_svg_attr_name(a));
        /* next element in pre-order: first element child, else the next element
         * sibling of n or of its nearest ancestor below root */
        xmlNodePtr k = n->children;
        while (k && k->type != XML_ELEMENT_NODE)
            k = k->next;
        if (k) {
            parent = (long)i;
            n = k;
            continue;
        }
        for (;;) {
            if (n == root) {
                n = NULL;
                break;
            }
            xmlNodePtr s = n->next;
            while (s && s->type != XML_ELEMENT_NODE)
                s = s->next;
            if (s) {
                n = s;
                break;
            }
            n = n->parent;
            parent = l->e[parent].parent;
        }
    }
    return true;
}

/* Bytes of text a node list expands to, entity references included, each
 * node counting at least 1 (so a nest of empty entities cannot make the walk
 * itself unbounded). Stops counting once *total passes cap. Entities are not
 * substituted by our parse (no XML_PARSE_NOENT), but every consumer expands
 * them: the text and attribute readers, the frame writer's output, and
 * librsvg, which re-parses what we hand it. An SVG of 174 KB with one 100 KB
 * entity used 20,000 times drove librsvg to 24 GB (issue 17 §4). */
static void expanded_size(xmlNodePtr n, size_t cap, size_t *total, int depth)
{
    for (; n && *total <= cap; n = n->next) {
        size_t add = 1;
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE ||
            n->type == XML_COMMENT_NODE)
            add += n->content ? (size_t)xmlStrlen(n->content) : 0;
        *total += add;
        if (depth > 512)
            continue;
        if (n->type == XML_ENTITY_REF_NODE) {
            xmlEntityPtr e = (xmlEntityPtr)n->children;
            if (e && e->children)
                expanded_size(e->children, cap, total, depth + 1);
            else if (e && e->content)
                *total += (size_t)xmlStrlen(e->content);
        } else if (n->type == XML_ELEMENT_NODE) {
            for (xmlAttrPtr a = n->properties; a && *total <= cap; a = a->next)
                expanded_size(a->children, cap, total, depth + 1);
            expanded_size(n->children, cap, total, depth + 1);
        }
    }
}

skf_status skf_svg_load_memory(const char *data, size_t size, const char *name,
                               const skf_svg_load_options *opts, skf_svg_character **out,
                               skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    if (!name)
        name = "<memory>";
    const skf_limits *lim = opts ? opts->limits : NULL;
    size_t cap = skf_limits_value(lim, SKF_LIMIT_SVG_BYTES);
    if (size > cap)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes exceed %s", name, size,
                        skf_limits_exceeded(lim, SKF_LIMIT_SVG_BYTES).text);
    if (size > (size_t)0x7fffffff)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes, above libxml2's fixed limit of 2^31-1",
                        name, size);
    skf_svg_character *c = skf_calloc(1, sizeof *c);
    if (!c)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    c->name = skf_strdup(name);
    if (!c->name) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    size_t max_depth = skf_limits_value(lim, SKF_LIMIT_SVG_DEPTH);
    /* libxml2 stops at 256 levels unless told XML_PARSE_HUGE (then 2048);
     * ask for it only when the caller raised the depth cap. */
    bool huge = max_depth > LIBXML_DEFAULT_MAX_DEPTH;
    skf_status st = SKF_OK;

    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    c->doc_free = free_doc;
    c->doc = xmlCtxtReadMemory(ctxt, data, (int)size, name, NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                   (huge ? XML_PARSE_HUGE : 0));
    xmlDocPtr doc = c->doc;
    if (!doc) {
        const xmlError *e = &ctxt->lastError;
        char msg[256];
        snprintf(msg, sizeof msg, "%s", e->message ? e->message : "not well-formed XML");
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = 0;
        if (strstr(msg, "Excessive depth"))
            st = skf_fail(err, SKF_ERR_LIMIT, "%s: line %d: element nesting exceeds %s", name,
                          e->line, skf_limits_exceeded(lim, SKF_LIMIT_SVG_DEPTH).text);
        else
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %d: %s", name, e->line, msg);
        xmlFreeParserCtxt(ctxt);
        skf_svg_free(c);
        return st;
    }
    xmlFreeParserCtxt(ctxt);
    /* the text the document expands to is capped like the file itself */
    size_t expanded = 0;
    expanded_size(doc->children, cap, &expanded, 0);
    if (expanded > cap) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_LIMIT,
                        "%s: entity expansion: the document expands to more than %zu bytes, above %s",
                        name, cap, skf_limits_exceeded(lim, SKF_LIMIT_SVG_BYTES).text);
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "svg")) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: root element is not <svg>", name);
    }
    elem_list list = {0};
    if (!elem_list_build(&list, root)) {
        elem_list_release(&list);
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    st = skfi_svg_load_elements(c, list.e, list.count, opts, warnings, err);
    for (size_t i = 0; st == SKF_OK && i < c->hidden_count; ++i)
        if (!xmlSetProp(list.node[c->hidden[i]], (const xmlChar *)"display", (const xmlChar *)"none"))
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    for (size_t i = 0; st == SKF_OK && i < c->path_count; ++i)
        c->paths[i].node = list.node[c->paths[i].element];
    elem_list_release(&list);
    if (st == SKF_OK)
        st = skfi_svg_build_frame_template(c, err);
    if (st != SKF_OK) {
        skf_svg_free(c);
        return st;
    }
    *out = c;
    return SKF_OK;
}

skf_status skf_svg_load(const char *path, const skf_svg_load_options *opts, skf_svg_character **out,
                        skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    skf_status st = skf_read_file_limits(path, opts ? opts->limits : NULL, SKF_LIMIT_SVG_BYTES, &data,
                                         &size, err);
    if (st != SKF_OK)
        return st;
    st = skf_svg_load_memory((const char *)data, size, path, opts, out, warnings, err);
    skf_free(data);
    return st;
}

