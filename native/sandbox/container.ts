/**
 * The docker/podman backend (container/): tasks that ship an image run in it. Kept as the module the rest
 * of the sandbox layer imports.
 */
export { ContainerBackend, DEFAULT_CONTAINER_OUTPUT_CHARS } from './container/backend';
export { detectContainerEngine, type EngineProbe, type EngineName, LABEL_KIND, LABEL_OWNER } from './container/engine';
export { sweepOrphanedContainers } from './container/sweep';
export {
  buildBaseImage,
  buildImage,
  inspectImage,
  pullImage,
  removeImage,
  DEFAULT_BASE_TAG,
  DEFAULT_BASE_PACKAGES,
  MMDEBSTRAP_HINT,
  type BaseImageResult,
  type BuildResult,
  type ImageInfo,
} from './container/images';
