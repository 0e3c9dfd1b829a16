/** The host's doctor report (`t1lab doctor`): versions, the sandbox, onnxruntime's providers, the machine; what is missing. */
import type { ReactNode } from 'react';
import type { DoctorReport } from '../../../../electron/domain/system';
import { KeyValue } from '../KeyValue';
import { Prose } from '../common/Prose';
import { bytes, Status } from './status';

export function HostReport({ report }: { report: DoctorReport }) {
  return (
    <>
      <KeyValue
        rows={[
          ['node', report.node],
          ['platform', report.platform],
          [
            'electron',
            <Status
              ok={report.electron.binary}
            >{`${report.electron.version ?? 'not installed'} (binary ${report.electron.binary ? 'present' : 'missing'})`}</Status>,
          ],
          [
            'sandbox',
            <Status
              ok={report.sandbox.ok}
            >{`${report.sandbox.backend} ${report.sandbox.version ?? ''} — ${report.sandbox.ok ? 'ok' : 'unusable'}`}</Status>,
          ],
          ['onnxruntime', report.onnxruntime.version ?? 'not installed'],
          ...report.onnxruntime.providers.map((p): [string, ReactNode] => [
            `provider ${p.name}`,
            <Status ok={p.available}>
              {p.available ? (
                'available'
              ) : (
                <>
                  unavailable — <Prose text={p.reason ?? ''} />
                </>
              )}
            </Status>,
          ]),
          ['cpu cores', String(report.cpu.cores)],
          ['cpu model', report.cpu.model],
          ['memory', bytes(report.memoryBytes)],
          [
            'gpus',
            report.gpus.length ? report.gpus.map((g) => `${g.name} (${bytes(g.memoryBytes)})`).join(', ') : 'none',
          ],
          ['data dir', report.dataDir],
        ]}
      />
      {report.missing.length > 0 && (
        <div className="missing">
          <h2>Optional parts missing</h2>
          <ul>
            {report.missing.map((m) => (
              <li key={m.part}>
                <strong>{m.part}</strong>: <Prose text={m.hint} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
