/**
 * Desktop notifications when a training run ends. In the app, Electron's main process shows them (the host
 * was given its Notification); in web mode the browser's Notification API does, once the user allowed it.
 */
import { getLabApi } from './api';

export function notificationsAvailable(): boolean {
  return typeof Notification !== 'undefined';
}

export function notificationPermission(): NotificationPermission | 'unsupported' {
  return notificationsAvailable() ? Notification.permission : 'unsupported';
}

export async function askNotificationPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (!notificationsAvailable()) return 'unsupported';
  return Notification.permission === 'default' ? Notification.requestPermission() : Notification.permission;
}

/** Follow `training.ended` and notify (web mode only: Electron's main notifies itself). Returns the unsubscribe. */
export function notifyWhenTrainingEnds(): () => void {
  const api = getLabApi();
  if (api.mode !== 'web') return () => undefined;
  return api.on('training.ended', (e) => {
    if (!notificationsAvailable() || Notification.permission !== 'granted') return;
    const verb = e.state === 'completed' ? 'finished' : e.state;
    new Notification(`Training ${verb}: ${e.runId}`, {
      body: `${e.stage}, step ${e.step}${e.message ? ` — ${e.message}` : ''}`,
      tag: `training-${e.runId}`,
    });
  });
}
