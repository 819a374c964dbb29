# The keywords' words on an English badge's screen (cran.screenwords.label), ASCII as the
# screens' fonts are: loaded by the first label an English badge draws, and never by a
# French one (the rulebook's language, and the default), whose heap keeps none of them.
# A table as a string: cran.core.vocab.lookup.
EN = ("|pleine-forme=Healthy|blesse=Wounded|agonisant=Dying|coma=Coma|mort=Dead|"
      "debout=Standing|au-sol=On the ground|inerte=Motionless|assomme=Stunned|"
      "aveugle=Blind|charme=Charmed|douleur=Pain|faiblesse=Weakness|immobilise=Rooted|"
      "obeis=Obey|paralyse=Paralysed|peur=Fear|statue=Statue|desarme=Disarmed|brise=Break|"
      "dissipe=Dispel|invisible=Invisible|message=Message|regard=Gaze|resiste=Resist|"
      "vol=Theft|mort-si-coma=Death if coma|armure=ARMOR|cri=SHOUT|")
