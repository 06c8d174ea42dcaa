"""English stopwords: words that say nothing about what an abstract is about.

Removed before similarity and distinctive-term statistics so that two abstracts
are not "similar" because both say "we" and "the"; search never requires them.
The list is scikit-learn's `ENGLISH_STOP_WORDS` (the Glasgow Information
Retrieval Group's list, as shipped in scikit-learn 1.6), with the pieces our
tokenizer makes of contractions (`doesn't` -> `doesn`, `t`) and a few function
words from NLTK's English list, plus the debris of URLs (`https`, `www`). Nothing
is added for one corpus or field; LaTeX command names are stripped before
tokenizing instead.
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
    amoungst amount back bill bottom call cant co con couldnt cry de describe detail eight
    eleven empty fifteen fifty fill find fire first five forty found four front full get give
    go hasnt hundred inc interest keep ltd made mill move name nine part put see serious show
    side sincere six sixty system take ten thick thin third three top twelve twenty two un
    al cf et viz vs
"""

STOPWORDS: frozenset[str] = frozenset(_WORDS.split())
