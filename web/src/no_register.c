/* The other-shape path of the transfer session in the WebAssembly core: not
 * carried. Registration (src/surface/register_nicp.c) factors its sparse
 * systems with CHOLMOD (src/surface/sparse_spd.c), which Debian does not
 * build for WebAssembly; so the core refuses a target whose rest surface is
 * another shape, with one message, where the native library registers it
 * (src/transfer/transfer_register.c). The session's fields for that path stay
 * zero, so releasing them frees nothing. No algorithm lives here. */
#include "skinfit/surface.h"

#include "transfer/transfer_internal.h"

skf_status skfi_transfer_register(skf_transfer *t, skf_error *err)
{
    return skf_fail(err, SKF_ERR_MISMATCH,
                    "the target is another shape (similarity residual %.3g %% of the diagonal): registering "
                    "it needs CHOLMOD, which the WebAssembly core does not carry; the native skinfit transfer does",
                    100 * t->align.residual);
}

skf_status skfi_transfer_registered_constraints(skf_transfer *t, const uint32_t *cons, size_t ncons, skf_error *err)
{
    (void)t, (void)cons, (void)ncons;
    return skf_fail(err, SKF_ERR_MISMATCH, "registration: not in the WebAssembly core");
}

void skfi_transfer_registration_info(const skf_transfer *t, skf_transfer_info *info)
{
    (void)t, (void)info;
}

skf_status skfi_transfer_carry_deformation(skf_transfer *t, size_t first, size_t F, const double *src_seq, double *u,
                                          skf_error *err)
{
    (void)t, (void)first, (void)F, (void)src_seq, (void)u;
    return skf_fail(err, SKF_ERR_MISMATCH, "deformation transfer: not in the WebAssembly core");
}

void skf_registration_release(skf_registration *r)
{
    (void)r;
}

void skf_deformation_transfer_free(skf_deformation_transfer *dt)
{
    (void)dt;
}
