#include "roles/trainer/spec_adapter.h"

namespace dg {

TrainerOptions TrainerOptionsFrom(const TrainSpec& s) {
  TrainerOptions o;
  o.model_path = s.model;
  o.epochs = s.epochs;
  o.lr = s.lr;
  o.optimizer = Name(s.optimizer);
  o.weight_decay = s.weight_decay;
  o.momentum = s.momentum;
  o.batch_size = s.batch_size;
  o.fanouts = s.fanouts;
  // A job's eval_full_neighbors: false evaluates with the training fanouts.
  if (!s.eval_full_neighbors) o.eval_fanouts = s.eval_fanouts.empty() ? s.fanouts : s.eval_fanouts;
  o.eval_batch_size = s.eval_batch_size;
  o.eval_every = s.eval_every;
  o.seed = s.seed;
  o.threads = s.intra_op_threads;
  o.resume = s.resume;
  o.checkpoint_every_steps = s.checkpoint_every_steps;
  o.checkpoint_keep = s.checkpoint_keep;
  o.save_predictions = s.save_predictions;
  o.save_embeddings = s.save_embeddings;
  o.num_classes = s.num_classes;
  o.log_every = s.log_every;
  o.quiet = s.quiet;
  o.use_features = s.embedding.uses_features();
  return o;
}

}  // namespace dg
