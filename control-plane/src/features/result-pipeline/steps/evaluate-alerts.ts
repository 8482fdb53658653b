// Step 2 (alerting): opens and resolves the alerts the stored results call for.
import type { AlertEvaluator } from '../../alerting/alert-evaluator.js';
import type { PipelineStep } from '../result-batch.js';

export function evaluateAlerts(evaluator: AlertEvaluator): PipelineStep {
  return async (tx, batch) => {
    batch.alerts = await evaluator.evaluate(tx, batch.stored);
  };
}
