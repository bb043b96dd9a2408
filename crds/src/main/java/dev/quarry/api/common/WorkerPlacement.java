package dev.quarry.api.common;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * Where a resource's worker pods run, as the resource asks: each field it sets (a non-empty one) replaces the
 * cluster admin's default of that field (chart values {@code worker.*}) as a whole, never merged with it. Security
 * contexts are not among them: the admin's hardened defaults hold for every worker.
 */
public interface WorkerPlacement {
  /** Field descriptions shared by the kinds that carry a placement, so that {@code kubectl explain} says the same. */
  String NODE_SELECTOR = "Labels a node must have to run the worker pods. Replaces, not merges with, the cluster"
      + " admin's default (chart value worker.nodeSelector); empty or unset keeps that default.";
  String TOLERATIONS = "Tolerations of the worker pods, for example to reach tainted GPU or spot nodes. Replace, not"
      + " merge with, the cluster admin's default (chart value worker.tolerations); empty or unset keeps that"
      + " default.";
  String AFFINITY = "Node and pod affinity of the worker pods. Replaces, not merges with, the cluster admin's"
      + " default (chart value worker.affinity); unset keeps that default.";
  String PRIORITY_CLASS_NAME = "PriorityClass of the worker pods. Replaces the cluster admin's default (chart value"
      + " worker.priorityClassName); unset keeps that default.";

  Map<String, String> nodeSelector();

  List<Toleration> tolerations();

  Affinity affinity();

  String priorityClassName();
}
