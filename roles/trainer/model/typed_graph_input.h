// Reading a typed dataset directory (docs/formats.md: meta.json, nodes/<type>/
// {features,labels,split}.npy[.gz], edges/<src>__<rel>__<dst>.tsv) into the
// input of TypedInMemoryGraph (common/sampling/typed_graph.h), for train-local
// and model export. undirected adds the reverse relation rev_<rel> of every
// edge type (DGL's convention), after the forward ones.
#pragma once

#include <string>

#include "common/base/status.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/typed_dataset.h"

namespace dg {

Result<TypedGraphInput> LoadTypedGraphInput(const std::string& dir, bool undirected, int64_t* num_classes);

}  // namespace dg
