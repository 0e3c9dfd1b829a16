/** The preload (bundled to dist/node/preload.cjs): exposes window.lab and nothing else; never raw ipcRenderer. */
import { contextBridge, ipcRenderer } from 'electron';
import { exposeLab } from './expose';

exposeLab(contextBridge, ipcRenderer);
