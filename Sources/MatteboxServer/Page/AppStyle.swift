extension AppPage {
    static let style = #"""
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: #111; color: #eee; }
        header { display: flex; gap: 1em; align-items: center; padding: .5em 1em; background: #000; }
        header span { color: #aaa; font-size: 90%; }
        #banner { padding: .6em 1em; background: #a60; color: #fff; display: flex; gap: 1em; align-items: center; }
        #banner[hidden] { display: none; }
        main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em; }
        #viewfinder { flex: 2 1 420px; }
        #settings { flex: 1 1 260px; }
        #frame { position: relative; background: #000; overflow: hidden; }
        #preview { display: block; width: 100%; height: auto; }
        #preview.mirrored { transform: scaleX(-1); }
        #flash { position: absolute; inset: 0; background: #000; opacity: 0; pointer-events: none; transition: opacity .25s; }
        #flash.on { opacity: 1; transition: none; }
        #reticle { position: absolute; width: 64px; height: 64px; margin: -32px 0 0 -32px; border: 2px solid #fc0; pointer-events: none; }
        #bar { display: flex; align-items: center; justify-content: space-between; padding: .8em 0; }
        #shutter { width: 64px; height: 64px; border-radius: 50%; border: 4px solid #fff; background: #ddd; cursor: pointer; }
        #shutter:disabled { background: #555; cursor: default; }
        #record { padding: 6px 10px; border-radius: 14px; border: 1px solid #c33; background: #222; color: #f55; cursor: pointer; }
        #record.recording { background: #c33; color: #fff; }
        #switch { font-size: 22px; width: 48px; height: 48px; border-radius: 50%; }
        #last { width: 48px; height: 48px; object-fit: cover; border-radius: 6px; }
        label { display: block; margin: .4em 0; }
        label[hidden], p[hidden] { display: none; }
        h2 { font-size: 110%; margin: 1em 0 .4em; }
        .control { margin: .5em 0; }
        .control .value { color: #aaa; margin-left: .5em; }
        .control.inactive { opacity: .5; }
        input[type=range] { width: 100%; }
        #library-section { padding: 0 1em 2em; }
        #library, #trash { display: grid; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); gap: .6em; }
        .item { background: #222; padding: .3em; border-radius: 6px; font-size: 80%; word-break: break-all; cursor: pointer; }
        .item img, .item video { width: 100%; height: 90px; object-fit: cover; display: block; }
        .badge { display: inline-block; background: #345; padding: 0 .3em; margin: .1em; border-radius: 3px; }
        #viewer { margin: 1em 0; background: #222; padding: .5em; }
        #viewer[hidden] { display: none; }
        #viewer-bar { display: flex; gap: .6em; flex-wrap: wrap; align-items: center; margin-bottom: .5em; }
        #viewer-bar a { color: #8cf; }
        #viewer-image, #viewer-video { max-width: 100%; display: block; }
        #viewer-image[hidden], #viewer-video[hidden] { display: none; }
        #portrait-control { display: flex; gap: .8em; flex-wrap: wrap; align-items: center; margin-bottom: .5em; }
        #portrait-control[hidden] { display: none; }
        #aperture { width: 14em; vertical-align: middle; }
        .badge.live { background: #a60; }
        button { background: #333; color: #eee; border: 1px solid #555; border-radius: 4px; padding: .3em .7em; cursor: pointer; }
        button.selected { background: #246; }
        select { background: #222; color: #eee; }
        """#
}
