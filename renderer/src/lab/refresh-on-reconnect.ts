/** After the connection comes back, every page's store reads its state again from the host. */
import { onReconnect } from './api';
import { useModels } from '../stores/models';
import { useRuns } from '../stores/runs';
import { useSystem } from '../stores/system';
import { useTasks } from '../stores/tasks';

export function refreshStoresOnReconnect(): () => void {
  return onReconnect(() => {
    // Live progress came from the lost connection (its evaluations may have died with the host).
    useRuns.setState({ progress: {} });
    void useRuns.getState().refreshList();
    void useRuns.getState().refreshDetail();
    void useTasks.getState().load();
    void useModels.getState().refresh();
    void useSystem.getState().refresh();
  });
}
