// Step 4 (notifications): writes the deliveries of the notices left to the outbox.
import type { NotificationPlanner } from '../../notifications/notification-planner.js';
import type { PipelineStep } from '../result-batch.js';

export function planNotifications(planner: NotificationPlanner): PipelineStep {
  return async (tx, batch) => {
    batch.planned = await planner.plan(tx, batch.alerts.notices);
  };
}
