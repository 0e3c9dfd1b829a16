/** Named views kept in the browser: read back checked, saved under a name (replacing one of that name), forgotten. */
import { describe, expect, test } from 'vitest';
import { parseSavedViews, withoutView, withView } from '../../../renderer/src/components/common/saved-views';

describe('saved views', () => {
  test('a new name goes last; the same name replaces its view in place; blank names and foreign addresses are refused', () => {
    let views = withView([], 'kl watch', '#/training/RUN/q=kl');
    views = withView(views, 'compare', '#/compare/A/B');
    views = withView(views, ' kl watch ', '#/training/RUN/q=^ppo');
    expect(views).toEqual([
      { name: 'kl watch', hash: '#/training/RUN/q=^ppo' },
      { name: 'compare', hash: '#/compare/A/B' },
    ]);
    expect(withView(views, '  ', '#/runs')).toEqual(views);
    expect(withView(views, 'x', 'https://elsewhere')).toEqual(views);
    expect(withoutView(views, 'compare')).toEqual([{ name: 'kl watch', hash: '#/training/RUN/q=^ppo' }]);
  });
  test('what is read back is checked entry by entry', () => {
    expect(parseSavedViews(null)).toEqual([]);
    expect(parseSavedViews('{')).toEqual([]);
    expect(
      parseSavedViews(
        JSON.stringify([
          { name: 'ok', hash: '#/runs' },
          { name: '', hash: '#/x' },
          { name: 'bad', hash: 'javascript:1' },
          3,
        ]),
      ),
    ).toEqual([{ name: 'ok', hash: '#/runs' }]);
  });
});
