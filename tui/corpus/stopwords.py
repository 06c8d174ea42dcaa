"""English stopwords: words that say nothing about what an abstract is about.

Removed before similarity and distinctive-term statistics so that two abstracts
are not "similar" because both say "we" and "the". The list is the usual
function-word list (close to sklearn's and NLTK's) plus the debris of URLs
(`https`, `www`); LaTeX command names are stripped before tokenizing instead.
"""

from __future__ import annotations

_WORDS = """
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anyhow anyone anything anyway anywhere
    are around as at be became because become becomes becoming been before beforehand behind
    being below beside besides between beyond both but by can cannot could did do does doing
    done down due during each eg either else elsewhere enough etc even ever every everyone
    everything everywhere except few for former formerly from further had has have having he
    hence her here hereafter hereby herein hereupon hers herself him himself his how however i
    ie if in indeed into is it its itself just last latter latterly least less many may me
    meanwhile might mine more moreover most mostly much must my myself namely neither never
    nevertheless next no nobody none noone nor not nothing now nowhere of off often on once one
    only onto or other others otherwise our ours ourselves out over own per perhaps please
    rather re same seem seemed seeming seems several she should since so some somehow someone
    something sometime sometimes somewhere still such than that the their theirs them themselves
    then thence there thereafter thereby therefore therein thereupon these they this those
    though through throughout thru thus to together too toward towards under until up upon us
    very via was we well were what whatever when whence whenever where whereafter whereas
    whereby wherein whereupon wherever whether which while whither who whoever whole whom whose
    why will with within without would yet you your yours yourself yourselves
    s t d ll m o re ve y isn aren wasn weren hasn haven hadn doesn don didn won wouldn shan
    shouldn can couldn mustn needn
    http https www com org html pdf url
"""

STOPWORDS: frozenset[str] = frozenset(_WORDS.split())
