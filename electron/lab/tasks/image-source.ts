/**
 * Where a task's container image comes from: the prebuilt `docker_image` it names, the Dockerfile it ships
 * (Harbor: environment/Dockerfile, context environment/; TB1: Dockerfile at the root, context the root),
 * or the single service of its docker-compose file. Several services cannot run in one container: the
 * source says so (`problem`), and the container backend refuses the task with that reason.
 */
import { posix } from 'node:path';
import { parseDocument } from 'yaml';
import { decodeText, type TaskFile, type TaskImageSource } from './model';

const COMPOSE_NAMES = ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml', 'compose.yml'];

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
}

export function imageSource(
  files: Map<string, TaskFile>,
  dockerImage: string | null,
  layout: 'harbor' | 'tb1',
): TaskImageSource | null {
  // Imported TB1 tasks keep their build context under environment/, as Harbor tasks do.
  const dirs = layout === 'tb1' ? ['', 'environment'] : ['environment'];
  for (const dir of dirs) {
    const at = (name: string) => (dir ? `${dir}/${name}` : name);
    const compose = COMPOSE_NAMES.map(at).find((p) => files.has(p));
    if (compose) {
      const parsed = composeService(decodeText((files.get(compose) as TaskFile).data) ?? '');
      if ('problem' in parsed)
        return { dockerImage, dockerfile: null, contextDir: dir, problem: `${compose}: ${parsed.problem}` };
      const service = parsed.service;
      const build = typeof service.build === 'string' ? { context: service.build } : service.build;
      if (build) {
        const context = posix.normalize(posix.join(dir, build.context ?? '.')).replace(/^\.$/, '');
        if (context.startsWith('..'))
          return {
            dockerImage,
            dockerfile: null,
            contextDir: dir,
            problem: `${compose}: the build context ${build.context} is outside the task`,
          };
        const dockerfile = posix.join(context, build.dockerfile ?? 'Dockerfile');
        if (files.has(dockerfile)) return { dockerImage, dockerfile, contextDir: context, problem: null };
      }
      const image = service.image && !service.image.includes('${') ? service.image : null;
      return {
        dockerImage: dockerImage ?? image,
        dockerfile: files.has(at('Dockerfile')) ? at('Dockerfile') : null,
        contextDir: dir,
        problem: null,
      };
    }
    if (files.has(at('Dockerfile')))
      return { dockerImage, dockerfile: at('Dockerfile'), contextDir: dir, problem: null };
  }
  return dockerImage ? { dockerImage, dockerfile: null, contextDir: '', problem: null } : null;
}

function composeService(text: string): { service: ComposeService } | { problem: string } {
  let doc: { services?: Record<string, ComposeService> } | null;
  try {
    doc = parseDocument(text).toJS() as typeof doc;
  } catch (e) {
    return { problem: `not valid YAML (${(e as Error).message.split('\n')[0]})` };
  }
  const names = Object.keys(doc?.services ?? {});
  if (names.length === 0) return { problem: 'defines no services' };
  if (names.length > 1)
    return {
      problem: `defines ${names.length} services (${names.join(', ')}); the lab runs one container per task, so multi-service tasks are not supported`,
    };
  return { service: (doc?.services as Record<string, ComposeService>)[names[0] as string] ?? {} };
}
