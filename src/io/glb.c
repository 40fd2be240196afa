/* GLB container (glTF 2.0 binary): 12-byte header, then chunks.
 *
 * Reference: glTF 2.0 specification, section 4.4 "Binary glTF Layout":
 *   header  = uint32 magic 0x46546C67 ("glTF"), uint32 version (2),
 *             uint32 length (whole file, header included);
 *   chunk   = uint32 chunkLength, uint32 chunkType, chunkData[chunkLength];
 *   chunk 0 must be JSON (0x4E4F534A); an optional BIN chunk (0x004E4942)
 *   follows; other chunk types are ignored. All values little-endian.
 * Every length is checked against the bytes that remain before it is used,
 * so any truncation or inflated length gives an error with a byte offset.
 */
#include "io/gltf_internal.h"

#include <stdio.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool skfi_glb_is_glb(const uint8_t *data, size_t size)
{
    return size >= 4 && le32(data) == GLB_MAGIC;
}

static void chunk_name(uint32_t type, char out[16])
{
    char c[4] = {(char)(type & 0xff), (char)(type >> 8 & 0xff), (char)(type >> 16 & 0xff),
                 (char)(type >> 24 & 0xff)};
    bool printable = true;
    for (int i = 0; i < 4; ++i) {
        bool ok = (c[i] >= 32 && c[i] <= 126) || (i == 3 && c[i] == 0); /* "BIN\0" */
        printable = printable && ok;
    }
    if (printable)
        snprintf(out, 16, "'%.4s'", c);
    else
        snprintf(out, 16, "0x%08x", (unsigned)type);
}

skf_status skfi_glb_parse(const uint8_t *data, size_t size, const char *name, skfi_glb *out,
                          skf_warnings *warnings, skf_error *err)
{
    memset(out, 0, sizeof *out);
    if (size < 12)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte %zu: truncated GLB header (file has %zu bytes, header needs 12)",
                        name, size, size);
    if (le32(data) != GLB_MAGIC)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: bad GLB magic 0x%08x (expected 'glTF')",
                        name, (unsigned)le32(data));
    uint32_t version = le32(data + 4);
    if (version != 2)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte 4: GLB version %u is not supported (expected 2)", name,
                        (unsigned)version);
    uint32_t length = le32(data + 8);
    if (length > size)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte 8: GLB length %u is past the end of the file (%zu bytes; "
                        "truncated?)", name, (unsigned)length, size);
    if (length < 12)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 8: GLB length %u is smaller than the header",
                        name, (unsigned)length);
    if (length < size)
        skf_warn(warnings, "%s: byte %u: %zu bytes after the GLB end ignored", name,
                 (unsigned)length, size - length);
    size_t end = length;
    size_t pos = 12;
    int index = 0;
    bool have_json = false;
    while (pos < end) {
        if (end - pos < 8)
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: byte %zu: truncated chunk header (%zu bytes left, need 8)", name,
                            pos, end - pos);
        uint32_t clen = le32(data + pos);
        uint32_t ctype = le32(data + pos + 4);
        size_t body = pos + 8;
        if (clen > end - body)
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: byte %zu: chunk %d length %u is past the end of the GLB (%zu bytes "
                            "left)", name, pos, index, (unsigned)clen, end - body);
        if (index == 0) {
            if (ctype != GLB_JSON) {
                char cn[16];
                chunk_name(ctype, cn);
                return skf_fail(err, SKF_ERR_FORMAT,
                                "%s: byte %zu: first chunk has type %s, expected 'JSON'", name,
                                pos + 4, cn);
            }
            out->json = data + body;
            out->json_size = clen;
            out->json_offset = body;
            have_json = true;
        } else if (ctype == GLB_JSON) {
            return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: second JSON chunk", name, pos);
        } else if (ctype == GLB_BIN) {
            if (out->bin)
                return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: second BIN chunk", name, pos);
            if (index != 1)
                skf_warn(warnings, "%s: byte %zu: BIN chunk is not the second chunk", name, pos);
            out->bin = data + body;
            out->bin_size = clen;
        } else {
            char cn[16];
            chunk_name(ctype, cn);
            skf_warn(warnings, "%s: byte %zu: unknown chunk type %s ignored", name, pos, cn);
        }
        if (clen % 4)
            skf_warn(warnings, "%s: byte %zu: chunk %d length %u is not a multiple of 4", name,
                     pos, index, (unsigned)clen);
        pos = body + clen;
        ++index;
    }
    if (!have_json)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 12: GLB has no JSON chunk", name);
    return SKF_OK;
}
