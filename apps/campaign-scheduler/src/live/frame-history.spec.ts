import { FrameHistory } from './frame-history';

describe('FrameHistory', () => {
  it('keeps the frames of the window, oldest first', () => {
    const history = new FrameHistory<string>(3000);
    history.add(1000, 'a');
    history.add(2000, 'b');
    history.add(3000, 'c');
    expect(history.frames()).toEqual(['a', 'b', 'c']);
    history.add(4000, 'd');
    expect(history.frames()).toEqual(['b', 'c', 'd']);
  });

  it('drops what the window left behind when trimmed without a new frame', () => {
    const history = new FrameHistory<string>(3000);
    history.add(1000, 'a');
    history.add(2000, 'b');
    history.trim(4500);
    expect(history.frames()).toEqual(['b']);
    history.trim(60_000);
    expect(history.size).toBe(0);
  });

  it('holds one window at one frame a second: 900 frames for 15 minutes', () => {
    const history = new FrameHistory<number>(15 * 60_000);
    for (let second = 0; second < 2000; second += 1) history.add(second * 1000, second);
    expect(history.size).toBe(900);
    expect(history.frames()[0]).toBe(1100);
  });
});
